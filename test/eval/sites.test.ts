import { describe, expect, it } from 'vitest';
import { evalTasks } from '../../eval/tasks/index.ts';
import { navigationReferences } from '../../src/sites/navigation.ts';
import { readSite } from '../../src/sites/read-site.ts';
import { filesOf } from '../sites/files.ts';

describe('eval repositories', () => {
  it('are read by sites/ as the kind each task names, with every navigation entry a page', async () => {
    for (const task of evalTasks) {
      const sites = await readSite(filesOf(task.files));
      expect(
        sites.map((site) => site.kind),
        task.name,
      ).toEqual([task.framework]);
      const entries = navigationReferences({ tree: sites[0].navigation, listsEveryPage: false });
      expect(sites[0].pages.length, task.name).toBe(entries.length);
    }
  });
});
