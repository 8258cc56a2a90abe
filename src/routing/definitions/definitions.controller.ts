import { Controller, Delete, Get, Param, Post, Put } from '@nestjs/common';
import { ApiBasicAuth, ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  DefinitionDto,
  MessageDto,
  SaveDefinitionDto,
  SaveMiddlewareDto,
  SaveServiceDto,
} from './dto/save-definition.dto';
import { RoutingBody } from '../routing-validation';
import { MIDDLEWARE_KIND, SERVICE_KIND } from './definition.repository';
import { DefinitionsService } from './definitions.service';

@ApiTags('routing: middlewares')
@ApiBasicAuth('basic')
@Controller('api/middlewares')
export class MiddlewaresController {
  constructor(private readonly definitions: DefinitionsService) {}

  @Get()
  @ApiOperation({ operationId: 'middlewares.list' })
  @ApiResponse({ status: 200, type: [DefinitionDto] })
  list(): Promise<DefinitionDto[]> {
    return this.definitions.list(MIDDLEWARE_KIND);
  }

  @Post()
  @ApiOperation({ operationId: 'middlewares.create' })
  @ApiBody({ type: SaveDefinitionDto })
  @ApiResponse({ status: 201, type: DefinitionDto })
  create(@RoutingBody() body: SaveMiddlewareDto): Promise<DefinitionDto> {
    return this.definitions.create(MIDDLEWARE_KIND, body);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'middlewares.get' })
  @ApiResponse({ status: 200, type: DefinitionDto })
  get(@Param('id') id: string): Promise<DefinitionDto> {
    return this.definitions.get(MIDDLEWARE_KIND, id);
  }

  @Put(':id')
  @ApiOperation({ operationId: 'middlewares.update' })
  @ApiBody({ type: SaveDefinitionDto })
  @ApiResponse({ status: 200, type: DefinitionDto })
  update(@Param('id') id: string, @RoutingBody() body: SaveMiddlewareDto): Promise<DefinitionDto> {
    return this.definitions.update(MIDDLEWARE_KIND, id, body);
  }

  @Delete(':id')
  @ApiOperation({ operationId: 'middlewares.delete' })
  @ApiResponse({ status: 200, type: MessageDto })
  remove(@Param('id') id: string): Promise<MessageDto> {
    return this.definitions.remove(MIDDLEWARE_KIND, id);
  }
}

@ApiTags('routing: services')
@ApiBasicAuth('basic')
@Controller('api/services')
export class ServicesController {
  constructor(private readonly definitions: DefinitionsService) {}

  @Get()
  @ApiOperation({ operationId: 'services.list' })
  @ApiResponse({ status: 200, type: [DefinitionDto] })
  list(): Promise<DefinitionDto[]> {
    return this.definitions.list(SERVICE_KIND);
  }

  @Post()
  @ApiOperation({ operationId: 'services.create' })
  @ApiBody({ type: SaveDefinitionDto })
  @ApiResponse({ status: 201, type: DefinitionDto })
  create(@RoutingBody() body: SaveServiceDto): Promise<DefinitionDto> {
    return this.definitions.create(SERVICE_KIND, body);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'services.get' })
  @ApiResponse({ status: 200, type: DefinitionDto })
  get(@Param('id') id: string): Promise<DefinitionDto> {
    return this.definitions.get(SERVICE_KIND, id);
  }

  @Put(':id')
  @ApiOperation({ operationId: 'services.update' })
  @ApiBody({ type: SaveDefinitionDto })
  @ApiResponse({ status: 200, type: DefinitionDto })
  update(@Param('id') id: string, @RoutingBody() body: SaveServiceDto): Promise<DefinitionDto> {
    return this.definitions.update(SERVICE_KIND, id, body);
  }

  @Delete(':id')
  @ApiOperation({ operationId: 'services.delete' })
  @ApiResponse({ status: 200, type: MessageDto })
  remove(@Param('id') id: string): Promise<MessageDto> {
    return this.definitions.remove(SERVICE_KIND, id);
  }
}
