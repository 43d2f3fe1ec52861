// Turns a tool's JSON input schema into prompts, one per argument, and the answers into typed values.
import * as vscode from 'vscode';
import { z } from 'zod';

const propertySchema = z
  .object({
    type: z.union([z.string(), z.array(z.string())]).optional(),
    description: z.string().optional(),
    enum: z.array(z.unknown()).optional(),
    default: z.unknown().optional(),
  })
  .loose();
const inputSchema = z
  .object({
    properties: z.record(z.string(), propertySchema).optional(),
    required: z.array(z.string()).optional(),
  })
  .loose();

export type ArgumentPrompt = { name: string; type: string; description?: string; required: boolean; options?: unknown[] };

export function argumentPrompts(schema: unknown): ArgumentPrompt[] {
  const parsed = inputSchema.safeParse(schema);
  if (!parsed.success) return [];
  const required = new Set(parsed.data.required ?? []);
  return Object.entries(parsed.data.properties ?? {}).map(([name, p]) => {
    const types = Array.isArray(p.type) ? p.type.filter((t) => t !== 'null') : [p.type ?? 'string'];
    return { name, type: types[0] ?? 'string', description: p.description, required: required.has(name), options: p.enum };
  });
}

/** Converts the typed text to the argument's JSON type; throws a message for the input box on bad input. */
export function convertAnswer(prompt: ArgumentPrompt, text: string): unknown {
  switch (prompt.type) {
    case 'number':
    case 'integer': {
      const n = Number(text);
      if (text.trim() === '' || !Number.isFinite(n)) throw new Error(`${prompt.name} must be a number`);
      if (prompt.type === 'integer' && !Number.isInteger(n)) throw new Error(`${prompt.name} must be a whole number`);
      return n;
    }
    case 'boolean':
      if (text === 'true' || text === 'false') return text === 'true';
      throw new Error(`${prompt.name} must be true or false`);
    case 'object':
    case 'array': {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        throw new Error(`${prompt.name} must be JSON (${prompt.type === 'array' ? '[ ... ]' : '{ ... }'})`);
      }
      if (prompt.type === 'array' ? !Array.isArray(value) : typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new Error(`${prompt.name} must be a JSON ${prompt.type}`);
      }
      return value;
    }
    default:
      return text;
  }
}

/** Asks for every argument; undefined when the user cancels. Optional arguments left empty are omitted. */
export async function askForArguments(toolName: string, schema: unknown): Promise<Record<string, unknown> | undefined> {
  const args: Record<string, unknown> = {};
  for (const p of argumentPrompts(schema)) {
    const label = `${toolName}: ${p.name} (${p.type}${p.required ? ', required' : ', optional: leave empty to omit'})`;
    if (p.options || p.type === 'boolean') {
      const choices = (p.options ?? [true, false]).map((o) => ({ label: String(o), value: o }));
      const items = p.required ? choices : [{ label: '(omit)', value: undefined }, ...choices];
      const picked = await vscode.window.showQuickPick(items, { title: label, placeHolder: p.description });
      if (!picked) return undefined;
      if (picked.value !== undefined) args[p.name] = picked.value;
      continue;
    }
    const text = await vscode.window.showInputBox({
      title: label,
      prompt: p.description,
      ignoreFocusOut: true,
      validateInput: (value) => {
        if (value === '' && !p.required) return undefined;
        if (value === '' && p.type !== 'string') return `${p.name} is required`;
        try {
          convertAnswer(p, value);
          return undefined;
        } catch (err) {
          return (err as Error).message;
        }
      },
    });
    if (text === undefined) return undefined;
    if (text === '' && !p.required) continue;
    args[p.name] = convertAnswer(p, text);
  }
  return args;
}
