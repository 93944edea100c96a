/**
 * The controls of the webviews, drawn like VS Code's (controls.css): native elements, so keyboard use and
 * screen readers work as everywhere else, styled from the theme's variables. Every button, select,
 * checkbox and choice of the three webviews is one of these.
 */
import type { ComponentChildren, JSX } from 'preact';
import { useRef } from 'preact/hooks';
import { Icon } from './icon';
import type { IconName } from './icons';

type ButtonProps = Omit<JSX.ButtonHTMLAttributes<HTMLButtonElement>, 'class' | 'icon' | 'label'> & {
  /** Secondary (the default) or primary: one primary action per group. */
  primary?: boolean;
  small?: boolean;
  icon?: IconName;
  class?: string;
  /** Unavailable, saying why in the tooltip: stays focusable (screen readers read the reason). */
  unavailable?: string | false;
  children?: ComponentChildren;
};

/** A text button (an optional codicon before the text). */
export function Button(props: ButtonProps) {
  const { primary, small, icon, class: extra, unavailable, children, onClick, title, ...rest } = props;
  const classes = ['button', primary ? '' : 'secondary', small ? 'small' : '', extra ?? ''].filter(Boolean).join(' ');
  return (
    <button
      type="button"
      {...rest}
      class={classes}
      title={unavailable || title}
      aria-disabled={unavailable ? true : undefined}
      onClick={(event) => {
        if (!unavailable) onClick?.(event);
      }}
    >
      {icon ? <Icon name={icon} /> : null}
      {children}
    </button>
  );
}

/** A codicon button: its label is its accessible name and tooltip. */
export function IconButton(
  props: Omit<JSX.ButtonHTMLAttributes<HTMLButtonElement>, 'class' | 'icon' | 'label'> & {
    icon: IconName;
    label: string;
    class?: string;
    unavailable?: string | false;
    spin?: boolean;
  },
) {
  const { icon, label, class: extra, unavailable, onClick, title, spin, ...rest } = props;
  return (
    <button
      type="button"
      {...rest}
      class={`icon-button ${extra ?? ''}`}
      aria-label={label}
      title={unavailable ? `${label}: ${unavailable}` : (title ?? label)}
      aria-disabled={unavailable ? true : undefined}
      onClick={(event) => {
        if (!unavailable) onClick?.(event);
      }}
    >
      <Icon name={icon} spin={spin} />
    </button>
  );
}

/** A native select with VS Code's dropdown colours and chevron. */
export function Select(
  props: Omit<JSX.SelectHTMLAttributes<HTMLSelectElement>, 'class' | 'label' | 'value' | 'onChange'> & {
    label: string;
    value: string;
    onChange: (value: string) => void;
    class?: string;
    wrapClass?: string;
    children: ComponentChildren;
  },
) {
  const { label, value, onChange, class: extra, wrapClass, children, title, ...rest } = props;
  return (
    <span class={`select-wrap ${wrapClass ?? ''}`}>
      <select
        {...rest}
        class={`select ${extra ?? ''}`}
        aria-label={label}
        title={title ?? label}
        value={value}
        onChange={(event) => onChange((event.currentTarget as HTMLSelectElement).value)}
      >
        {children}
      </select>
      <Icon name="chevron-down" class="select-chevron" />
    </span>
  );
}

/** A native checkbox drawn like VS Code's, with its label. */
export function Checkbox(props: { label: string; checked: boolean; onChange: (checked: boolean) => void; title?: string; class?: string; disabled?: boolean }) {
  return (
    <label class={`checkbox ${props.class ?? ''}`} title={props.title}>
      <input
        type="checkbox"
        checked={props.checked}
        disabled={props.disabled}
        onChange={(event) => props.onChange((event.currentTarget as HTMLInputElement).checked)}
      />
      <span>{props.label}</span>
    </label>
  );
}

/**
 * One choice of a few, as a segmented switch: a radio group (Tab reaches the chosen one, the arrow keys
 * move the choice, like native radio buttons).
 */
export function Segmented<T extends string>(props: {
  label: string;
  value: T;
  options: ReadonlyArray<{ id: T; label: string; title?: string }>;
  onChange: (value: T) => void;
  class?: string;
  /** A class for each choice's button besides `segment`. */
  itemClass?: string;
}) {
  const group = useRef<HTMLDivElement>(null);
  const move = (event: KeyboardEvent) => {
    const delta = event.key === 'ArrowRight' || event.key === 'ArrowDown' ? 1 : event.key === 'ArrowLeft' || event.key === 'ArrowUp' ? -1 : 0;
    const edge = event.key === 'Home' ? 0 : event.key === 'End' ? props.options.length - 1 : undefined;
    if (delta === 0 && edge === undefined) return;
    event.preventDefault();
    const at = props.options.findIndex((o) => o.id === props.value);
    const next = edge ?? (at + delta + props.options.length) % props.options.length;
    const option = props.options[next];
    if (!option) return;
    props.onChange(option.id);
    group.current?.querySelectorAll<HTMLButtonElement>('[role=radio]')[next]?.focus();
  };
  return (
    <div class={`segmented ${props.class ?? ''}`} role="radiogroup" aria-label={props.label} ref={group} onKeyDown={move}>
      {props.options.map((option) => (
        <button
          key={option.id}
          type="button"
          role="radio"
          class={`segment ${props.itemClass ?? ''}`}
          aria-checked={props.value === option.id}
          tabIndex={props.value === option.id ? 0 : -1}
          title={option.title}
          onClick={() => props.onChange(option.id)}
        >
          {option.label}
        </button>
      ))}
    </div>
  );
}
