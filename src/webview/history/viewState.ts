/** What the Sessions view keeps in its webview state (VS Code keeps it while the view is hidden): where it was scrolled and which session was selected. */
import { host } from './host';

export interface ViewState {
  readonly scrollTop?: number;
  readonly activeKey?: string;
}

export function loadViewState(): ViewState {
  const saved = host.getState();
  if (typeof saved !== 'object' || saved === null) return {};
  const { scrollTop, activeKey } = saved as Record<string, unknown>;
  return { scrollTop: typeof scrollTop === 'number' ? scrollTop : undefined, activeKey: typeof activeKey === 'string' ? activeKey : undefined };
}

export function saveViewState(state: ViewState): void {
  host.setState(state);
}
