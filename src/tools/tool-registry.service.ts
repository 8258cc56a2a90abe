import { Inject, Injectable, Optional } from '@nestjs/common';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import { bashTool } from './builtin/bash.tool';
import { editTool } from './builtin/edit.tool';
import { globTool } from './builtin/glob.tool';
import { grepTool } from './builtin/grep.tool';
import { invalidTool } from './builtin/invalid.tool';
import { listTool } from './builtin/list.tool';
import { readTool } from './builtin/read.tool';
import { taskTool } from './builtin/task.tool';
import { todoReadTool, todoWriteTool } from './builtin/todo.tool';
import type { TodoStore } from './builtin/todo.tool';
import { webfetchTool } from './builtin/webfetch.tool';
import { writeTool } from './builtin/write.tool';
import type { ToolDefinition } from './tool';
import { ToolError } from './tool';
import { zod } from '../providers/ai-sdk';
import { wildcardLookup } from '../common/wildcard';

export const TODO_STORE = Symbol('TODO_STORE');

export interface ToolListItem {
  id: string;
  description: string;
  parameters: unknown;
}

/** Switches from config `tools`, the agent's `tools` and a prompt's `tools`; later maps override earlier ones. */
type ToolSwitches = Record<string, boolean> | undefined;

const unavailableTodos: TodoStore = {
  get: () => Promise.reject(new ToolError('Todo lists are not available')),
  set: () => Promise.reject(new ToolError('Todo lists are not available')),
};

/**
 * ToolRegistry — the built-in tools, in the reference's order.
 *
 *   ids() → string[]                                  `GET /experimental/tool/ids`
 *   list(providerID, modelID) → ToolListItem[]        `GET /experimental/tool` (JSON-schema parameters)
 *   get(id) → ToolDefinition | undefined
 *   enabled(...switches) → ToolDefinition[]           tools the model may call (never `invalid`);
 *                                                     switch keys may be wildcards ("web*": false)
 */
@Injectable()
export class ToolRegistry {
  private readonly tools: ToolDefinition[];
  private readonly schemas = new Map<string, unknown>();

  constructor(@Inject(KEEL_SETTINGS) settings: KeelSettings, @Optional() @Inject(TODO_STORE) todos?: TodoStore) {
    const store = todos ?? unavailableTodos;
    this.tools = [
      invalidTool,
      bashTool,
      readTool,
      globTool,
      grepTool,
      listTool,
      editTool,
      writeTool,
      taskTool,
      webfetchTool({ allowPrivate: settings.allowPrivateFetch }),
      todoWriteTool(store),
      todoReadTool(store),
    ] as ToolDefinition[];
  }

  ids(): string[] {
    return this.tools.map((t) => t.id);
  }

  get(id: string): ToolDefinition | undefined {
    return this.tools.find((t) => t.id === id);
  }

  /** The reference lists every registered tool for any provider and model (`model` is unused). */
  list(_providerID: string, _modelID: string): ToolListItem[] {
    return this.tools.map((t) => ({ id: t.id, description: t.description, parameters: this.jsonSchema(t) }));
  }

  enabled(...switches: ToolSwitches[]): ToolDefinition[] {
    return this.tools.filter((t) => {
      if (t.id === 'invalid') return false;
      let on = true;
      for (const map of switches) {
        const value = map ? wildcardLookup(t.id, map) : undefined;
        if (value !== undefined) on = value;
      }
      return on;
    });
  }

  jsonSchema(tool: ToolDefinition): unknown {
    let schema = this.schemas.get(tool.id);
    if (!schema) {
      const { $schema: _ignored, ...rest } = zod().toJSONSchema(tool.parameters, { io: 'input' }) as Record<string, unknown>;
      schema = rest;
      this.schemas.set(tool.id, schema);
    }
    return schema;
  }
}
