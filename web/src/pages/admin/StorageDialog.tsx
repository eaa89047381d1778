/** Create or edit a storage: common fields, `seed_policy`, `proxy`, and the driver's options (`/api/admin/driver/list`). */
import { useState } from 'react';
import { api, errorMessage } from '../../api.js';
import { CheckboxField, SelectField, TextField } from '../../components/Field.js';
import { useSubmit } from '../../components/hooks.js';
import { Modal, ModalActions } from '../../components/Modal.js';
import { InlineError } from '../../components/ui.js';
import type { DriverInfo, DriverOption, Storage } from '../../types.js';

type Values = Record<string, string | boolean>;

function initialValues(opts: DriverOption[], addition: Record<string, unknown>): Values {
  const v: Values = {};
  for (const o of opts) {
    const cur = addition[o.name];
    if (o.type === 'bool') v[o.name] = cur === undefined ? o.default === 'true' : cur === true || cur === 'true';
    else v[o.name] = cur === undefined || cur === null ? o.default : String(cur);
  }
  return v;
}

function parseAddition(s: string | undefined): Record<string, unknown> {
  try {
    const v = JSON.parse(s ?? '{}') as unknown;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function StorageDialog({
  storage,
  drivers,
  onClose,
  onSaved,
}: {
  storage: Storage | null;
  drivers: Record<string, DriverInfo>;
  onClose: () => void;
  onSaved: (msg: string) => void;
}) {
  const names = Object.keys(drivers);
  const [driver, setDriver] = useState(storage?.driver ?? names[0] ?? 'local');
  const info = drivers[driver];
  const [mountPath, setMountPath] = useState(storage?.mount_path ?? '/');
  const [order, setOrder] = useState(String(storage?.order ?? 0));
  const [remark, setRemark] = useState(storage?.remark ?? '');
  const [seedPolicy, setSeedPolicy] = useState<string>(storage?.seed_policy ?? 'inherit');
  const [proxy, setProxy] = useState(storage?.proxy ?? info?.config.default_proxy ?? true);
  const [disabled, setDisabled] = useState(storage?.disabled ?? false);
  const [values, setValues] = useState<Values>(() => initialValues(info?.additional ?? [], parseAddition(storage?.addition)));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const { busy, error, setError, run } = useSubmit();

  const changeDriver = (d: string) => {
    setDriver(d);
    setValues(initialValues(drivers[d]?.additional ?? [], {}));
    setProxy(drivers[d]?.config.default_proxy ?? true);
    setErrors({});
  };

  const save = async () => {
    const errs: Record<string, string> = {};
    if (!mountPath.startsWith('/')) errs.mount_path = 'The mount path must start with /.';
    if (!/^-?\d+$/.test(order.trim())) errs.order = 'A whole number.';
    const addition: Record<string, unknown> = {};
    for (const o of info?.additional ?? []) {
      const v = values[o.name];
      if (o.type === 'bool') addition[o.name] = v === true;
      else if (o.type === 'number') {
        const s = String(v ?? '').trim();
        if (s === '' && !o.required) continue;
        if (!Number.isFinite(Number(s)) || s === '') errs[o.name] = 'Enter a number.';
        else addition[o.name] = Number(s);
      } else {
        const s = String(v ?? '');
        if (o.required && s.trim() === '') errs[o.name] = 'Required.';
        addition[o.name] = s;
      }
    }
    setErrors(errs);
    if (Object.keys(errs).length) return setError('Fix the fields marked below.');
    const body = { mount_path: mountPath, driver, order: Number(order), remark, seed_policy: seedPolicy, proxy, disabled, addition };
    await run(
      async () => {
        if (storage) await api.post('/api/admin/storage/update', { id: storage.id, ...body });
        else await api.post('/api/admin/storage/create', body);
        onSaved(storage ? `Saved ${mountPath}` : `Added ${mountPath}`);
      },
      (e) => {
        const option = (e as { data?: { option?: string } }).data?.option;
        if (option) setErrors({ [option]: errorMessage(e) });
      },
    );
  };

  const onlyProxy = info?.config.only_proxy ?? false;
  return (
    <Modal
      open
      wide
      title={storage ? `Edit storage ${storage.mount_path}` : 'Add storage'}
      onClose={onClose}
      onSubmit={save}
      footer={<ModalActions onCancel={onClose} submitLabel={storage ? 'Save' : 'Add storage'} disabled={busy} />}
    >
      <div className="grid-2">
        <SelectField
          label="Driver"
          value={driver}
          onChange={changeDriver}
          disabled={!!storage}
          options={names.map((n) => ({ value: n, label: drivers[n]!.config.display_name }))}
          hint={storage ? 'The driver of an existing storage cannot change.' : undefined}
        />
        <TextField label="Mount path" hint="Where it appears in the tree, e.g. /archive." value={mountPath} onChange={setMountPath} error={errors.mount_path} />
        <TextField label="Order" hint="Lower comes first in lists." inputMode="numeric" value={order} onChange={setOrder} error={errors.order} />
        <TextField label="Remark" value={remark} onChange={setRemark} />
        <SelectField
          label="Seed sidecars on upload"
          value={seedPolicy}
          onChange={setSeedPolicy}
          options={[
            { value: 'inherit', label: 'Inherit the site setting' },
            { value: 'on', label: 'Always create' },
            { value: 'off', label: 'Never create' },
          ]}
          hint="seed_policy: used when an upload does not ask for sidecars itself."
        />
      </div>
      <CheckboxField
        label="Proxy content through Ferry"
        hint={onlyProxy ? 'This driver can only serve content through Ferry.' : 'Off: downloads redirect to the storage and Ferry cannot read file bytes (seed hashing needs it on).'}
        checked={onlyProxy || proxy}
        disabled={onlyProxy}
        onChange={setProxy}
      />
      <CheckboxField label="Disabled" checked={disabled} onChange={setDisabled} />
      <fieldset>
        <legend>{info?.config.display_name ?? driver} options</legend>
        <div className="grid-2">
          {(info?.additional ?? []).map((o) => {
            const label = (
              <>
                {o.name}
                {o.required && <span aria-hidden="true"> *</span>}
              </>
            );
            const set = (v: string | boolean) => setValues((vs) => ({ ...vs, [o.name]: v }));
            if (o.type === 'bool') return <CheckboxField key={o.name} label={label} hint={o.help} checked={values[o.name] === true} onChange={set} />;
            if (o.type === 'select')
              return <SelectField key={o.name} label={label} hint={o.help} error={errors[o.name]} value={String(values[o.name] ?? '')} onChange={set} options={o.options.split(',').filter(Boolean)} />;
            return (
              <TextField
                key={o.name}
                label={label}
                hint={o.help}
                error={errors[o.name]}
                required={o.required}
                inputMode={o.type === 'number' ? 'decimal' : undefined}
                type={/secret|password/.test(o.name) ? 'password' : 'text'}
                autoComplete="off"
                value={String(values[o.name] ?? '')}
                onChange={set}
              />
            );
          })}
        </div>
      </fieldset>
      <InlineError error={error} />
    </Modal>
  );
}
