/** The Review Changes panel's bridge to the host, typed by its protocol (src/shared/reviewProtocol.ts). */
import { HostToReview, type ReviewToHost } from '../../shared/reviewProtocol';
import { createBridge } from '../common/bridge';

export const host = createBridge<ReviewToHost, HostToReview>(HostToReview);
