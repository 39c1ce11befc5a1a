/** Whether the repository at a plan's path is still the one the plan was made for (every backend). */
import type { RepositoryBinding } from '../types.js';

/** The first way `now` differs from the plan's binding, or null when it is the same repository. */
export function bindingMismatch(planned: RepositoryBinding, now: RepositoryBinding): string | null {
  if (planned.metadata_dir !== now.metadata_dir)
    return `its git dir is now ${JSON.stringify(now.metadata_dir)}, not ${JSON.stringify(planned.metadata_dir)}`;
  if (planned.device !== now.device || planned.inode !== now.inode)
    return 'its git dir was replaced (another device or inode): it is not the repository the plan was made for';
  if (JSON.stringify(planned.root_commits) !== JSON.stringify(now.root_commits))
    return "the base's root commits differ: it is not the repository the plan was made for";
  return null;
}
