export * from './regulatory-profile';
export * from './parse-profiles';
export * from './profile-catalog';
export * from './load-profile-catalog';
