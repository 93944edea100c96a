/** A context chip (in the prompt box, and on a queued message): what is attached, and in which folder. */
import * as l10n from '@vscode/l10n';
import type { ViewSessionState } from '../../shared/chatModel';
import type { Attachment } from '../../shared/chatProtocol';
import { IconButton } from '../common/controls';
import { Icon } from '../common/icon';
import { fileChipParts } from './fileLabel';

/** A context chip: a file says its name and folder ("greet.ts · app"), the full path in its tooltip. */
export function AttachmentChip(props: { attachment: Attachment; roots: ViewSessionState['roots']; onRemove?: () => void }) {
  const { attachment } = props;
  const file =
    attachment.kind === 'image'
      ? undefined
      : fileChipParts(attachment.path, props.roots, attachment.kind === 'selection' ? `:${attachment.startLine}-${attachment.endLine}` : '');
  const name = file ? file.name : attachment.label;
  const title = attachment.kind === 'image' ? attachment.label : attachment.path;
  return (
    <span class="chip" title={title}>
      <Icon name={attachment.kind === 'image' ? 'file-media' : attachment.kind === 'selection' ? 'selection' : 'file'} />
      <span class="chip-name">{name}</span>
      {file?.folder ? <span class="chip-folder">{`· ${file.folder}`}</span> : null}
      {props.onRemove ? <IconButton icon="close" label={l10n.t('Remove {0}', name)} onClick={props.onRemove} /> : null}
    </span>
  );
}
