// Registers every tool of the spec (4.2), by category.
import { registerAiTools } from './ai';
import type { NotesContext } from './context';
import { registerEditorTools } from './editor';
import { registerFileTools } from './file';
import { registerNoteTools } from './note';
import { registerSearchTools } from './search';
import { registerWorkspaceTools } from './workspace';

export function registerTools(ctx: NotesContext): void {
  registerFileTools(ctx);
  registerSearchTools(ctx);
  registerEditorTools(ctx);
  registerNoteTools(ctx);
  registerWorkspaceTools(ctx);
  registerAiTools(ctx);
}
