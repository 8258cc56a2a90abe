import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ConflictError, NotFoundError } from '../../common/errors';
import { hexId } from '../../common/ids';
import { canonical, parseJsonObject } from '../json-text';
import { DefinitionKind, DefinitionRepository, DefinitionRow } from './definition.repository';
import { DefinitionDto, MessageDto, SaveDefinitionDto } from './dto/save-definition.dto';
import { RoutingEvents } from '../routing-events';

export function definitionView(row: DefinitionRow): DefinitionDto {
  return { id: row.id, name: row.name, type: row.type, config: parseJsonObject(row.config) };
}

/** `/api/middlewares` and `/api/services`: CRUD with Traefik-level validation of each config. */
@Injectable()
export class DefinitionsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly definitions: DefinitionRepository,
    private readonly events: RoutingEvents,
  ) {}

  async list(kind: DefinitionKind): Promise<DefinitionDto[]> {
    return (await this.definitions.list(kind)).map(definitionView);
  }

  async get(kind: DefinitionKind, id: string): Promise<DefinitionDto> {
    const row = await this.definitions.find(kind, id);
    if (!row) throw new NotFoundError(`${kind.label} not found`);
    return definitionView(row);
  }

  /** A checked `{name, type, config}` as stored: the config is canonical JSON. */
  private static values({ name, type, config }: SaveDefinitionDto): Omit<DefinitionRow, 'id'> {
    return { name, type, config: JSON.stringify(canonical(config)) };
  }

  async create(kind: DefinitionKind, body: SaveDefinitionDto): Promise<DefinitionDto> {
    const row = { id: hexId(), ...DefinitionsService.values(body) };
    await this.definitions.insert(kind, row);
    const view = definitionView(row);
    this.events.publish(`${kind.subject}.created`, { [kind.subject]: view });
    return view;
  }

  async update(kind: DefinitionKind, id: string, body: SaveDefinitionDto): Promise<DefinitionDto> {
    const values = DefinitionsService.values(body);
    if (!(await this.definitions.update(kind, id, values)))
      throw new NotFoundError(`${kind.label} not found`);
    const view = definitionView({ id, ...values });
    this.events.publish(`${kind.subject}.updated`, { [kind.subject]: view });
    return view;
  }

  /** Refused with 409 while any resource (active or disabled) uses it. */
  async remove(kind: DefinitionKind, id: string): Promise<MessageDto> {
    await this.db.transaction(async (manager) => {
      if (!(await this.definitions.exists(kind, id, manager)))
        throw new NotFoundError(`${kind.label} not found`);
      const uses = await this.definitions.uses(kind, id, manager);
      if (uses > 0) {
        throw new ConflictError(
          `Cannot delete ${kind.subject} because it is used by ${uses} resource${uses === 1 ? '' : 's'}`,
        );
      }
      await this.definitions.delete(kind, id, manager);
    });
    this.events.publish(`${kind.subject}.deleted`, { id });
    return { message: `${kind.label} deleted successfully` };
  }
}
