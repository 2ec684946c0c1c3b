// The account and admin pages' HTTP API (multi mode; GET /api/account in both modes).

import type { components } from "../api/schema";
import { request } from "../api";

type Schemas = components["schemas"];

export type AccountView = Schemas["AccountView"];
export type AccountToken = Schemas["AccountToken"];
export type AccountTokens = Schemas["AccountTokens"];
export type NewAccountToken = Schemas["NewAccountToken"];
export type AdminOverview = Schemas["AdminOverview"];
export type AdminUser = Schemas["AdminUser"];
export type AdminGrant = Schemas["AdminGrant"];
export type Role = AdminUser["role"];
export type Access = AdminGrant["access"];

const get = <T>(url: string) => request<T>("GET", url);
const post = <T>(url: string, body: unknown) => request<T>("POST", url, body);

/** Who a grant is for: one account or one group. */
export type Subject = { username: string } | { group: string };

export const teamApi = {
  account: () => get<AccountView>("/api/account"),
  tokens: () => get<AccountTokens>("/api/account/tokens"),
  createToken: (name: string, expires: string | null) =>
    post<NewAccountToken>("/api/account/tokens", expires ? { name, expires } : { name }),
  revokeToken: (id: string) => post<AccountTokens>("/api/account/tokens/revoke", { id }),
  changePassword: (current: string, next: string) =>
    post<{ ok: boolean }>("/api/account/password", { current_password: current, new_password: next }),
  signOutEverywhere: () => post<{ ended: number }>("/api/account/sign-out-everywhere", {}),

  overview: () => get<AdminOverview>("/api/admin"),
  addUser: (username: string, role: Role, password: string | null) =>
    post<AdminOverview>("/api/admin/users", password ? { username, role, password } : { username, role }),
  setRole: (username: string, role: Role) => post<AdminOverview>("/api/admin/users/role", { username, role }),
  setDisabled: (username: string, disabled: boolean) =>
    post<AdminOverview>("/api/admin/users/disable", { username, disabled }),
  deleteUser: (username: string) => post<AdminOverview>("/api/admin/users/delete", { username }),
  resetPassword: (username: string, password: string) =>
    post<AdminOverview>("/api/admin/users/password", { username, password }),
  grant: (subject: Subject, workspace: string, prefix: string, access: Access) =>
    post<AdminOverview>("/api/admin/grants", { ...subject, workspace, prefix, access }),
  revoke: (subject: Subject, workspace: string, prefix: string) =>
    post<AdminOverview>("/api/admin/grants/revoke", { ...subject, workspace, prefix }),
  addGroup: (name: string) => post<AdminOverview>("/api/admin/groups", { name }),
  deleteGroup: (name: string) => post<AdminOverview>("/api/admin/groups/delete", { name }),
  addMember: (group: string, username: string) =>
    post<AdminOverview>("/api/admin/groups/members", { group, username }),
  removeMember: (group: string, username: string) =>
    post<AdminOverview>("/api/admin/groups/members/remove", { group, username }),
};
