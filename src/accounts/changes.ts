import { EventEmitter } from 'node:events';

/**
 * Announces changes to keys and projects made in this process, so request caches drop what they
 * hold at once (other processes see the change when their cache entries expire).
 */
export const accountChanges = new EventEmitter<{ 'key-revoked': [keyId: string]; 'project-updated': [projectId: string] }>();
accountChanges.setMaxListeners(0);
