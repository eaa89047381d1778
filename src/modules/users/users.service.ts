/** User management rules (contract §5); the admin API and the CLI both go through here. */
import { badRequest, conflict, forbidden, notFound } from '../../lib/errors.js';
import { cleanPath } from '../../lib/path-safety.js';
import { passwordFields } from '../auth/password.js';
import type { UsersRepo, UserPatch } from './users.repo.js';
import { isAdmin, isGuest, Role, type User } from './user.model.js';

export interface UserInput {
  username: string;
  password?: string;
  base_path?: string;
  role?: number;
  permission?: number;
  disabled?: boolean;
  sso_id?: string;
}

const USERNAME_RE = /^[^\s/\\:\0]{1,64}$/;

function checkUsername(name: string): string {
  if (!USERNAME_RE.test(name)) throw badRequest('username: 1-64 characters, no spaces, slashes, colons or NUL');
  return name;
}

function checkPermission(p: number): number {
  if (!Number.isInteger(p) || p < 0 || p > 0xffff) throw badRequest('permission: must be an integer 0-65535');
  return p;
}

export class UsersService {
  constructor(private readonly repo: UsersRepo) {}

  async get(id: number): Promise<User> {
    const u = await this.repo.byId(id);
    if (!u) throw notFound('user not found');
    return u;
  }

  list(offset: number, limit: number | null) {
    return this.repo.list(offset, limit);
  }

  private async assertFreeUsername(username: string, exceptId?: number): Promise<void> {
    const other = await this.repo.byUsername(username);
    if (other && other.id !== exceptId) throw conflict(`username ${username} is taken`);
  }

  /** Admin: creates a general user. */
  async create(input: UserInput): Promise<User> {
    if (input.role !== undefined && input.role !== Role.GENERAL) throw badRequest('admin or guest user can not be created');
    const username = checkUsername(input.username);
    if (!input.password) throw badRequest('password: must not be empty');
    await this.assertFreeUsername(username);
    return this.repo.insert({
      username,
      ...(await passwordFields(input.password)),
      pwdTs: Date.now(),
      basePath: cleanPath(input.base_path ?? '/'),
      role: Role.GENERAL,
      disabled: input.disabled ?? false,
      permission: checkPermission(input.permission ?? 0),
      otpSecret: '',
      ssoId: input.sso_id ?? '',
    });
  }

  /** Admin: updates a user; the password changes only when a non-empty one is given. */
  async update(id: number, input: UserInput): Promise<void> {
    const u = await this.get(id);
    if (input.role !== undefined && input.role !== u.role) throw badRequest('role can not be changed');
    if (isAdmin(u) && input.disabled) throw badRequest('admin user can not be disabled');
    const username = checkUsername(input.username);
    if (isGuest(u) && username !== u.username) throw badRequest('the guest user can not be renamed');
    await this.assertFreeUsername(username, id);
    const patch: UserPatch = {
      username,
      basePath: input.base_path !== undefined ? cleanPath(input.base_path) : u.basePath,
      permission: input.permission !== undefined ? checkPermission(input.permission) : u.permission,
      disabled: input.disabled ?? u.disabled,
      ssoId: input.sso_id ?? u.ssoId,
    };
    if (input.password) Object.assign(patch, await passwordFields(input.password), { pwdTs: Date.now() });
    await this.repo.update(id, patch);
  }

  /** Self-service profile update: username, password, sso_id. */
  async updateMe(u: User, input: { username?: string; password?: string; sso_id?: string }): Promise<void> {
    if (isGuest(u)) throw forbidden('Guest user can not update profile');
    const patch: UserPatch = {};
    if (input.username !== undefined && input.username !== u.username) {
      patch.username = checkUsername(input.username);
      await this.assertFreeUsername(patch.username, u.id);
    }
    if (input.sso_id !== undefined) patch.ssoId = input.sso_id;
    if (input.password) Object.assign(patch, await passwordFields(input.password), { pwdTs: Date.now() });
    await this.repo.update(u.id, patch);
  }

  async setPassword(id: number, password: string): Promise<void> {
    if (!password) throw badRequest('password: must not be empty');
    await this.repo.update(id, { ...(await passwordFields(password)), pwdTs: Date.now() });
  }

  async delete(id: number): Promise<void> {
    const u = await this.get(id);
    if (isAdmin(u) || isGuest(u)) throw forbidden('cannot delete admin or guest');
    await this.repo.delete(id);
  }
}
