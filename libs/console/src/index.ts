export * from './console-user';
export * from './console-sign-in';
export { CONSOLE_ROLES, ROLE_SCOPES, isConsoleRole } from './roles';
export type { ConsoleRole } from './roles';
export { PASSWORD_LENGTH } from './passwords';
export { totpCode } from './totp';
