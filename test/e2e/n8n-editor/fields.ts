/**
 * What the node's parameter panel should show, derived at run time from the BUILT node's
 * description (n8n/dist), so the table follows the node when its operations change.
 *
 * On every change the editor (n8n 2.41, `useNodeSettingsParameters.updateNodeParameter`)
 * drops the values equal to their defaults, sets the changed value, unsets the option values
 * that the change made invalid (`removeMismatchedOptionValues` in `ndv.utils`: switching
 * Resource resets Operation to the new resource's default), then fills the defaults back in
 * (`NodeHelpers.getNodeParameters`). A parameter is shown when it is not `hidden` and
 * `NodeHelpers.displayParameterPath` says so. `FieldsModel` makes the same calls, so even
 * same-named parameters of different operations (e.g. `specifyData`, default `mapVariables`
 * for Issue and `keep` for Update) come out as the editor shows them.
 */
import * as path from 'node:path';
import { NodeHelpers, type INode, type INodeParameters, type INodeProperties, type INodeTypeDescription } from 'n8n-workflow';
import { PACKAGE_DIR } from '../n8n/package-setup';

export const ACTION_TYPE = 'CUSTOM.certificateService';
export const TRIGGER_TYPE = 'CUSTOM.certificateServiceTrigger';

/** The built node's description (requires `ensurePackageBuilt()` first). */
export function loadDescription(nodeName: 'CertificateService' | 'CertificateServiceTrigger'): INodeTypeDescription {
  const file = path.join(PACKAGE_DIR, 'dist', 'nodes', nodeName, `${nodeName}.node.js`);
  delete require.cache[require.resolve(file)]; // a rebuilt dist within one jest run
  const NodeClass = require(file)[nodeName];
  return new NodeClass().description as INodeTypeDescription;
}

export interface Option {
  name: string;
  value: string;
  action?: string;
}

/** The options of the `options` property `name` shown for the given values (e.g. the operations of a resource). */
export function shownOptions(description: INodeTypeDescription, name: string, values: INodeParameters): Option[] {
  const node = nodeOf(description, values);
  const property = description.properties.find(
    (p) => p.name === name && NodeHelpers.displayParameterPath(values, p, '', node, description),
  );
  return ((property?.options ?? []) as Option[]).map(({ name, value, action }) => ({ name, value: String(value), action }));
}

/** The node's parameters in the editor, changed one value at a time as a user does. */
export class FieldsModel {
  values: INodeParameters;

  constructor(
    private readonly description: INodeTypeDescription,
    initial: INodeParameters,
  ) {
    this.values = this.withDefaults(initial);
  }

  set(name: string, value: string): void {
    const changed = { ...this.withoutDefaults(this.values), [name]: value };
    this.removeMismatchedOptionValues(changed, name);
    this.values = this.withDefaults(changed);
  }

  /** The editor's `removeMismatchedOptionValues`, for `options` parameters (all this node has). */
  private removeMismatchedOptionValues(values: INodeParameters, changedName: string): void {
    const node = nodeOf(this.description, values);
    for (const p of this.description.properties) {
      const dependsOnChange = p.displayOptions?.show?.[changedName] ?? p.displayOptions?.hide?.[changedName];
      if (p.type !== 'options' || !(p.name in values) || dependsOnChange === undefined) continue;
      const valid = (p.options as Option[]).some((o) => o.value === values[p.name]);
      if (!valid && NodeHelpers.displayParameterPath(values, p, '', node, this.description)) delete values[p.name];
    }
  }

  /** Labels of the top-level parameters the editor shows, in order (notices have no label, only text). */
  visibleLabels(): string[] {
    const node = nodeOf(this.description, this.values);
    return this.visible(node)
      .filter((p) => p.type !== 'notice' && p.type !== 'callout')
      .map((p) => (p.type === 'resourceMapper' ? resourceMapperLabel(p) : p.displayName));
  }

  private visible(node: INode): INodeProperties[] {
    return this.description.properties.filter(
      (p) => p.type !== 'hidden' && NodeHelpers.displayParameterPath(this.values, p, '', node, this.description),
    );
  }

  private withDefaults(values: INodeParameters): INodeParameters {
    return this.parameters(values, true);
  }

  private withoutDefaults(values: INodeParameters): INodeParameters {
    return this.parameters(values, false);
  }

  private parameters(values: INodeParameters, returnDefaults: boolean): INodeParameters {
    const node = nodeOf(this.description, values);
    return NodeHelpers.getNodeParameters(this.description.properties, values, returnDefaults, false, node, this.description) ?? {};
  }
}

function nodeOf(description: INodeTypeDescription, parameters: INodeParameters): INode {
  return {
    id: 'fields-model',
    name: String(description.defaults.name ?? description.displayName),
    type: description.name === 'certificateServiceTrigger' ? TRIGGER_TYPE : ACTION_TYPE,
    typeVersion: 1,
    position: [0, 0],
    parameters,
  };
}

/**
 * A resource mapper's top-level label in n8n 2.41's editor: with auto-mapping on (the default) its
 * mode select's "Mapping Column Mode" (`MappingModeSelect`, i18n `resourceMapper.mappingMode.label`)
 * stands where the parameter's own name would; the columns below carry no top-level label.
 */
function resourceMapperLabel(p: INodeProperties): string {
  if (p.typeOptions?.resourceMapper?.supportAutoMap === false) throw new Error(`${p.name}: a resource mapper without auto-mapping has not been seen in the editor; look what it shows`);
  return 'Mapping Column Mode';
}
