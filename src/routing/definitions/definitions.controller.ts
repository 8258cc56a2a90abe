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
import { MIDDLEWARE_KIND, SERVICE_KIND } from './definition.repository';
import { DefinitionsService } from './definitions.service';

@RoutingController('routing: middlewares', 'api/middlewares')
export class MiddlewaresController {
  constructor(private readonly definitions: DefinitionsService) {}

  @Get()
  @RoutingOperation('middlewares.list', [DefinitionDto])
  list(): Promise<DefinitionDto[]> {
    return this.definitions.list(MIDDLEWARE_KIND);
  }

  @Post()
  @RoutingOperation('middlewares.create', DefinitionDto, { body: SaveDefinitionDto, status: 201 })
  create(@RoutingBody() body: SaveMiddlewareDto): Promise<DefinitionDto> {
    return this.definitions.create(MIDDLEWARE_KIND, body);
  }

  @Get(':id')
  @RoutingOperation('middlewares.get', DefinitionDto)
  get(@Param('id') id: string): Promise<DefinitionDto> {
    return this.definitions.get(MIDDLEWARE_KIND, id);
  }

  @Put(':id')
  @RoutingOperation('middlewares.update', DefinitionDto, { body: SaveDefinitionDto })
  update(@Param('id') id: string, @RoutingBody() body: SaveMiddlewareDto): Promise<DefinitionDto> {
    return this.definitions.update(MIDDLEWARE_KIND, id, body);
  }

  @Delete(':id')
  @RoutingOperation('middlewares.delete', MessageDto)
  remove(@Param('id') id: string): Promise<MessageDto> {
    return this.definitions.remove(MIDDLEWARE_KIND, id);
  }
}

@RoutingController('routing: services', 'api/services')
export class ServicesController {
  constructor(private readonly definitions: DefinitionsService) {}

  @Get()
  @RoutingOperation('services.list', [DefinitionDto])
  list(): Promise<DefinitionDto[]> {
    return this.definitions.list(SERVICE_KIND);
  }

  @Post()
  @RoutingOperation('services.create', DefinitionDto, { body: SaveDefinitionDto, status: 201 })
  create(@RoutingBody() body: SaveServiceDto): Promise<DefinitionDto> {
    return this.definitions.create(SERVICE_KIND, body);
  }

  @Get(':id')
  @RoutingOperation('services.get', DefinitionDto)
  get(@Param('id') id: string): Promise<DefinitionDto> {
    return this.definitions.get(SERVICE_KIND, id);
  }

  @Put(':id')
  @RoutingOperation('services.update', DefinitionDto, { body: SaveDefinitionDto })
  update(@Param('id') id: string, @RoutingBody() body: SaveServiceDto): Promise<DefinitionDto> {
    return this.definitions.update(SERVICE_KIND, id, body);
  }

  @Delete(':id')
  @RoutingOperation('services.delete', MessageDto)
  remove(@Param('id') id: string): Promise<MessageDto> {
    return this.definitions.remove(SERVICE_KIND, id);
  }
}
