/**
 * One agent of the registry: its icon, name, version, description, authors, license and links, which of its
 * distributions work here, and what can be done with it now. Every text comes from the registry and is
 * rendered as text nodes only.
 */
import * as l10n from '@vscode/l10n';
import { Component } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { DistributionKind, GalleryAgentView, GalleryAvailability } from '../../shared/agentGalleryProtocol';
import { cardAction } from '../../shared/agentGalleryModel';
import { Button, Select } from '../common/controls';
import { Icon } from '../common/icon';
import type { IconName } from '../common/icons';
import { host } from './host';
import type { GalleryStore } from './store';

const KIND_ICON: Record<DistributionKind, IconName> = { binary: 'cloud-download', npx: 'package', uvx: 'package' };

function kindLabel(kind: DistributionKind): string {
  switch (kind) {
    case 'binary':
      return l10n.t('Download');
    case 'npx':
      return 'npx';
    case 'uvx':
      return 'uvx';
  }
}

function AgentIcon(props: { agent: GalleryAgentView; store: GalleryStore; dataUri: string | undefined }) {
  const { agent, store, dataUri } = props;
  const ref = useRef<HTMLDivElement>(null);
  useEffect(
    () => (agent.hasIcon && !dataUri && ref.current ? store.watchIcon(ref.current, agent.id) : undefined),
    [agent.id, agent.hasIcon, dataUri === undefined],
  );
  return (
    <div class="agent-icon" ref={ref} aria-hidden="true">
      {dataUri ? <img src={dataUri} alt="" width={32} height={32} /> : <Icon name="extensions" />}
    </div>
  );
}

function Link(props: { agent: GalleryAgentView; url: string; icon: IconName; children: string; label: string }) {
  return (
    <a
      class="agent-link"
      href={props.url}
      title={props.url}
      aria-label={props.label}
      onClick={(event) => {
        event.preventDefault();
        host.post({ type: 'openLink', id: props.agent.id, url: props.url });
      }}
    >
      <Icon name={props.icon} />
      {props.children}
    </a>
  );
}

function Chip(props: { availability: GalleryAvailability }) {
  const { kind, available, reason } = props.availability;
  const label = kindLabel(kind);
  return (
    <li class={`chip ${available ? 'available' : 'unavailable'}`} title={available ? l10n.t('{0} works on this machine', label) : reason}>
      <Icon name={available ? KIND_ICON[kind] : 'circle-slash'} />
      <span>{label}</span>
      <span class="visually-hidden">{available ? l10n.t('available') : l10n.t('not available: {0}', reason ?? l10n.t('not on this machine'))}</span>
    </li>
  );
}

function Progress(props: { message: string; fraction?: number; label: string }) {
  const percent = props.fraction === undefined ? undefined : Math.round(props.fraction * 100);
  return (
    <div class="progress">
      <div
        class={`progress-bar ${percent === undefined ? 'indeterminate' : ''}`}
        role="progressbar"
        aria-label={props.label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={props.message}
      >
        <div class="progress-fill" style={percent === undefined ? undefined : { width: `${percent}%` }} />
      </div>
      <div class="progress-message">{props.message}</div>
    </div>
  );
}

function Actions(props: CardProps) {
  const { agent, store, locked, waiting } = props;
  const action = cardAction(agent);
  const [kind, setKind] = useState<DistributionKind | undefined>(undefined);
  const uninstall = (
    <Button
      small
      icon="trash"
      unavailable={locked}
      disabled={waiting}
      aria-label={l10n.t('Uninstall {0}', agent.name)}
      onClick={() => store.act({ type: 'uninstall', id: agent.id })}
    >
      {l10n.t('Uninstall')}
    </Button>
  );
  switch (action.kind) {
    case 'busy':
      return (
        <div class="agent-actions busy">
          <Progress message={action.message} fraction={action.fraction} label={l10n.t('Progress of {0}', agent.name)} />
          {action.action !== 'uninstall' ? (
            <Button
              small
              icon="close"
              disabled={waiting}
              aria-label={l10n.t('Cancel installing {0}', agent.name)}
              onClick={() => store.act({ type: 'cancel', id: agent.id })}
            >
              {l10n.t('Cancel')}
            </Button>
          ) : null}
        </div>
      );
    case 'install': {
      const chosen = kind !== undefined && action.kinds.includes(kind) ? kind : action.kinds[0]!;
      return (
        <div class="agent-actions">
          {action.kinds.length > 1 ? (
            <Select
              label={l10n.t('How to install {0}', agent.name)}
              value={chosen}
              onChange={(value) => setKind(value as DistributionKind)}
              disabled={waiting || locked !== undefined}
            >
              {action.kinds.map((k) => (
                <option key={k} value={k}>
                  {kindLabel(k)}
                </option>
              ))}
            </Select>
          ) : null}
          <Button
            primary
            small
            icon="cloud-download"
            unavailable={locked}
            disabled={waiting}
            aria-label={l10n.t('Install {0}', agent.name)}
            onClick={() => store.install(agent.id, chosen)}
          >
            {l10n.t('Install')}
          </Button>
        </div>
      );
    }
    case 'update':
      return (
        <div class="agent-actions">
          <span class="installed-version">{l10n.t('Installed {0}', action.from)}</span>
          <Button
            primary
            small
            icon="cloud-download"
            unavailable={locked}
            disabled={waiting}
            aria-label={l10n.t('Update {0} to {1}', agent.name, action.to)}
            onClick={() => store.install(agent.id)}
          >
            {l10n.t('Update to {0}', action.to)}
          </Button>
          {uninstall}
        </div>
      );
    case 'installed':
      return (
        <div class="agent-actions">
          <span class="installed-version">
            <Icon name="check" /> {l10n.t('Installed {0}', action.version)}
          </span>
          {agent.sessionAgent !== undefined ? (
            <Button
              small
              icon="comment-discussion"
              unavailable={locked}
              aria-label={l10n.t('New session with {0}', agent.sessionAgent)}
              onClick={() => host.post({ type: 'startSession', id: agent.id })}
            >
              {l10n.t('New Session')}
            </Button>
          ) : null}
          {uninstall}
        </div>
      );
    case 'unavailable':
      return (
        <div class="agent-actions">
          <span class="unavailable-note">{l10n.t('Not available on this machine')}</span>
        </div>
      );
  }
}

interface CardProps {
  readonly agent: GalleryAgentView;
  readonly store: GalleryStore;
  /** Why every action is disabled (Restricted Mode). */
  readonly locked: string | undefined;
  readonly icon: string | undefined;
  /** Its action was sent and the state that follows has not arrived. */
  readonly waiting: boolean;
}

/**
 * A card renders again only when what it shows changed: the store keeps an agent's object when a new state
 * has it unchanged, so progress of one install re-renders one card, not the whole list, ten times a second.
 */
export class AgentCard extends Component<CardProps> {
  override shouldComponentUpdate(next: CardProps): boolean {
    const now = this.props;
    return next.agent !== now.agent || next.locked !== now.locked || next.icon !== now.icon || next.waiting !== now.waiting;
  }

  override render() {
    return <Card {...this.props} />;
  }
}

function Card(props: CardProps) {
  const { agent, store, locked, waiting } = props;
  const titleId = `agent-${agent.id}`;
  const action = cardAction(agent);
  // Retry repeats what failed when that is clear: an install, or the update still offered.
  const retry = agent.error !== undefined && (action.kind === 'install' || action.kind === 'update');
  return (
    <li class={`agent-card ${agent.installed ? 'installed' : ''}`} aria-labelledby={titleId} data-agent={agent.id}>
      <AgentIcon agent={agent} store={store} dataUri={props.icon} />
      <div class="agent-main">
        <div class="agent-heading">
          <h2 class="agent-name" id={titleId}>
            {agent.name}
          </h2>
          <span class="agent-version">{agent.version}</span>
          {agent.builtIn !== undefined ? <span class="badge built-in">{l10n.t('Built in as {0}', agent.builtIn)}</span> : null}
          {agent.update !== undefined && agent.installed ? <span class="badge update">{l10n.t('Update available')}</span> : null}
        </div>
        {agent.description ? <p class="agent-description">{agent.description}</p> : null}
        <div class="agent-meta">
          {agent.authors.length > 0 ? (
            <span class="agent-authors">
              <Icon name="person" /> {agent.authors.join(', ')}
            </span>
          ) : null}
          {agent.license !== undefined ? (
            agent.licenseUrl !== undefined ? (
              <Link agent={agent} url={agent.licenseUrl} icon="law" label={l10n.t('License of {0}: {1}', agent.name, agent.license)}>
                {agent.license}
              </Link>
            ) : (
              <span class="agent-license">
                <Icon name="law" /> {agent.license}
              </span>
            )
          ) : null}
          {agent.repository !== undefined ? (
            <Link agent={agent} url={agent.repository} icon="repo" label={l10n.t('Repository of {0}', agent.name)}>
              {l10n.t('Repository')}
            </Link>
          ) : null}
          {agent.website !== undefined ? (
            <Link agent={agent} url={agent.website} icon="globe" label={l10n.t('Website of {0}', agent.name)}>
              {l10n.t('Website')}
            </Link>
          ) : null}
        </div>
        <ul class="chips" aria-label={l10n.t('Distributions of {0}', agent.name)}>
          {agent.availability.map((a) => (
            <Chip key={a.kind} availability={a} />
          ))}
        </ul>
        {agent.error !== undefined ? (
          <div class="agent-error">
            <Icon name="error" />
            <span class="agent-error-text">{agent.error}</span>
            {retry ? (
              <Button
                small
                icon="refresh"
                unavailable={locked}
                disabled={waiting}
                aria-label={l10n.t('Retry {0}', agent.name)}
                onClick={() => store.install(agent.id)}
              >
                {l10n.t('Retry')}
              </Button>
            ) : null}
          </div>
        ) : null}
      </div>
      <Actions {...props} />
    </li>
  );
}
