/**
 * Counts the changes to keys and projects made in this process. Request caches compare a count
 * before answering and drop what they hold when it moved, so a revoked key or an updated project is
 * seen at once here (other processes see it when their cache entries expire). A counter, not an
 * event emitter: caches subscribe to nothing, so nothing can leak when a cache is dropped.
 */
const counts = { keys: 0, projects: 0 };

export const keyChanges = (): number => counts.keys;
export const projectChanges = (): number => counts.projects;

export function noteKeyChange(): void {
  counts.keys++;
}

export function noteProjectChange(): void {
  counts.projects++;
}
