/** The public shape of a user (GET /api/me, the admin user API). */
import type { User } from './user.model.js';
import type { UserView } from './users.schemas.js';

export function presentMe(u: User): UserView {
  return {
    id: u.id,
    username: u.username,
    password: '',
    base_path: u.basePath,
    role: u.role,
    disabled: u.disabled,
    permission: u.permission,
    sso_id: u.ssoId,
    otp: u.otpSecret !== '',
  };
}
