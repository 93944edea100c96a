/** A codicon (its own module: a webview that shows no markdown does not bundle the markdown renderer). */
import type { IconName } from './icons';

export function Icon(props: { name: IconName; spin?: boolean; label?: string; class?: string }) {
  const classes = ['codicon', `codicon-${props.name}`, props.spin ? 'codicon-modifier-spin' : '', props.class ?? ''].filter(Boolean).join(' ');
  return props.label ? <span class={classes} role="img" aria-label={props.label} title={props.label} /> : <span class={classes} aria-hidden="true" />;
}
