import { Delete, Get, Param, Post, Put } from '@nestjs/common';
import {
  DefinitionDto,
  MessageDto,
  SaveDefinitionDto,
  SaveMiddlewareDto,
  SaveServiceDto,
} from './dto/save-definition.dto';
import { RoutingBody } from '../routing-validation';
import { RoutingController, RoutingOperation } from '../routing-operation';
import { DefinitionKind, MIDDLEWARE_KIND, SERVICE_KIND } from './definition.repository';
import { DefinitionsService } from './definitions.service';

/**
 * `/api/middlewares` and `/api/services`: the same five operations on one kind of definition, whose
 * body class `Save` holds the rules of that kind's configs.
 */
function definitionsController(kind: DefinitionKind, Save: typeof SaveDefinitionDto) {
  const path = `${kind.subject}s`;

  @RoutingController(`routing: ${path}`, `api/${path}`)
  class DefinitionsController {
    constructor(readonly definitions: DefinitionsService) {}

    @Get()
    @RoutingOperation(`${path}.list`, [DefinitionDto])
    list(): Promise<DefinitionDto[]> {
      return this.definitions.list(kind);
    }

    @Post()
    @RoutingOperation(`${path}.create`, DefinitionDto, { body: SaveDefinitionDto, status: 201 })
    create(@RoutingBody({ as: Save }) body: SaveDefinitionDto): Promise<DefinitionDto> {
      return this.definitions.create(kind, body);
    }

    @Get(':id')
    @RoutingOperation(`${path}.get`, DefinitionDto)
    get(@Param('id') id: string): Promise<DefinitionDto> {
      return this.definitions.get(kind, id);
    }

    @Put(':id')
    @RoutingOperation(`${path}.update`, DefinitionDto, { body: SaveDefinitionDto })
    update(
      @Param('id') id: string,
      @RoutingBody({ as: Save }) body: SaveDefinitionDto,
    ): Promise<DefinitionDto> {
      return this.definitions.update(kind, id, body);
    }

    @Delete(':id')
    @RoutingOperation(`${path}.delete`, MessageDto)
    remove(@Param('id') id: string): Promise<MessageDto> {
      return this.definitions.remove(kind, id);
    }
  }
  return DefinitionsController;
}

export const MiddlewaresController = definitionsController(MIDDLEWARE_KIND, SaveMiddlewareDto);
export const ServicesController = definitionsController(SERVICE_KIND, SaveServiceDto);
