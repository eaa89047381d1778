/**
 * What `/api/admin/driver/{list,info}` say about a driver, in OpenList's shape: `common` (the storage's own
 * fields, the same for every driver), `additional` (the driver's options) and `config` (OpenList's keys, plus
 * Ferry's `display_name` and `default_proxy`).
 */
import type { DriverDefinition, OptionDescriptor } from './drivers/index.js';
import type { DriverInfo } from './storages.schemas.js';

type Item = DriverInfo['common'][number];

/** A storage's own fields, as OpenList's storage form renders them (its `common` items). */
export function commonItems(d: Pick<DriverDefinition, 'config'>): Item[] {
  return [
    { name: 'mount_path', type: 'string', default: '', options: '', required: true, help: 'Path of the storage in the virtual tree, e.g. /media.' },
    { name: 'order', type: 'number', default: '0', options: '', required: false, help: 'Sort order among storages (lower first).' },
    { name: 'remark', type: 'text', default: '', options: '', required: false, help: 'A note for admins.' },
    {
      name: 'proxy',
      type: 'bool',
      default: String(d.config.defaultProxy),
      options: '',
      required: false,
      help: d.config.onlyProxy ? 'This driver can only serve content through Ferry.' : 'Off: downloads redirect to the storage and Ferry cannot read file bytes.',
    },
    { name: 'seed_policy', type: 'select', default: 'inherit', options: 'inherit,on,off', required: false, help: 'Upload sidecars for this storage: inherit the site policy, always, or never.' },
  ];
}

function item(o: OptionDescriptor): Item {
  return { name: o.name, type: o.type, default: String(o.default), options: (o.options ?? []).join(','), required: o.required, help: o.help };
}

export function driverInfo(d: DriverDefinition): DriverInfo {
  return {
    common: commonItems(d),
    additional: d.options.map(item),
    config: {
      name: d.name,
      display_name: d.config.displayName,
      local_sort: false,
      only_local: false,
      only_proxy: d.config.onlyProxy,
      no_cache: true,
      no_upload: false,
      need_ms: false,
      default_root: '/',
      alert: '',
      default_proxy: d.config.defaultProxy,
    },
  };
}
