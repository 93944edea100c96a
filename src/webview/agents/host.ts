/** The Add Agent tab's bridge to the host, typed by its protocol (src/shared/agentGalleryProtocol.ts). */
import { HostToGallery, type GalleryToHost } from '../../shared/agentGalleryProtocol';
import { createBridge } from '../common/bridge';

export const host = createBridge<GalleryToHost, HostToGallery>(HostToGallery);
