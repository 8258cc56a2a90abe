import { Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { AssignMiddlewareDto, AssignMiddlewaresDto, AssignServiceDto } from './dto/assign-middleware.dto';
import { ResourceDto } from './dto/resource.dto';
import {
  HeadersConfigDto,
  HttpConfigDto,
  MiddlewareAssignedDto,
  MiddlewaresAssignedDto,
  PriorityConfigDto,
  ResourceServiceDto,
  ServiceAssignedDto,
  TcpConfigDto,
  TlsConfigDto,
} from '../dto/routing-responses.dto';
import { MessageDto } from '../definitions/dto/save-definition.dto';
import {
  UpdateHeadersConfigDto,
  UpdateHttpConfigDto,
  UpdatePriorityConfigDto,
  UpdateTcpConfigDto,
  UpdateTlsConfigDto,
} from './dto/update-router.dto';
import { ResourcesService } from './resources.service';
import { RoutingBody, RoutingQuery } from '../routing-validation';
import { RoutingController, RoutingOperation } from '../routing-operation';
import { ListResourcesQueryDto } from './dto/list-resources.dto';

@RoutingController('routing: resources', 'api/resources')
export class ResourcesController {
  constructor(private readonly resources: ResourcesService) {}

  @Get()
  @RoutingOperation('resources.list', [ResourceDto], {
    description: 'Always an array; all statuses unless ?status= is given',
  })
  list(@RoutingQuery() query: ListResourcesQueryDto): Promise<ResourceDto[]> {
    return this.resources.list(query);
  }

  @Get(':id')
  @RoutingOperation('resources.get', ResourceDto)
  get(@Param('id') id: string): Promise<ResourceDto> {
    return this.resources.get(id);
  }

  @Delete(':id')
  @RoutingOperation('resources.delete', MessageDto, { description: 'Only disabled resources' })
  remove(@Param('id') id: string): Promise<MessageDto> {
    return this.resources.remove(id);
  }

  @Post(':id/middlewares')
  @HttpCode(200)
  @RoutingOperation('resources.assignMiddleware', MiddlewareAssignedDto, { body: AssignMiddlewareDto })
  assignMiddleware(
    @Param('id') id: string,
    @RoutingBody() body: AssignMiddlewareDto,
  ): Promise<MiddlewareAssignedDto> {
    return this.resources.assignMiddleware(id, body);
  }

  @Post(':id/middlewares/bulk')
  @HttpCode(200)
  @RoutingOperation('resources.assignMiddlewares', MiddlewaresAssignedDto, { body: AssignMiddlewaresDto })
  assignMiddlewares(
    @Param('id') id: string,
    @RoutingBody() body: AssignMiddlewaresDto,
  ): Promise<MiddlewaresAssignedDto> {
    return this.resources.assignMiddlewares(id, body);
  }

  @Delete(':id/middlewares/:middlewareId')
  @RoutingOperation('resources.removeMiddleware', MessageDto)
  removeMiddleware(
    @Param('id') id: string,
    @Param('middlewareId') middlewareId: string,
  ): Promise<MessageDto> {
    return this.resources.removeMiddleware(id, middlewareId);
  }

  @Get(':id/service')
  @RoutingOperation('resources.getService', ResourceServiceDto)
  getService(@Param('id') id: string): Promise<ResourceServiceDto> {
    return this.resources.getService(id);
  }

  @Post(':id/service')
  @HttpCode(200)
  @RoutingOperation('resources.assignService', ServiceAssignedDto, { body: AssignServiceDto })
  assignService(@Param('id') id: string, @RoutingBody() body: AssignServiceDto): Promise<ServiceAssignedDto> {
    return this.resources.assignService(id, body);
  }

  @Delete(':id/service')
  @RoutingOperation('resources.removeService', MessageDto)
  removeService(@Param('id') id: string): Promise<MessageDto> {
    return this.resources.removeService(id);
  }

  @Put(':id/config/http')
  @RoutingOperation('resources.updateHttpConfig', HttpConfigDto, { body: UpdateHttpConfigDto })
  updateHttp(@Param('id') id: string, @RoutingBody() body: UpdateHttpConfigDto): Promise<HttpConfigDto> {
    return this.resources.updateHttp(id, body);
  }

  @Put(':id/config/tls')
  @RoutingOperation('resources.updateTlsConfig', TlsConfigDto, { body: UpdateTlsConfigDto })
  updateTls(@Param('id') id: string, @RoutingBody() body: UpdateTlsConfigDto): Promise<TlsConfigDto> {
    return this.resources.updateTls(id, body);
  }

  @Put(':id/config/tcp')
  @RoutingOperation('resources.updateTcpConfig', TcpConfigDto, { body: UpdateTcpConfigDto })
  updateTcp(@Param('id') id: string, @RoutingBody() body: UpdateTcpConfigDto): Promise<TcpConfigDto> {
    return this.resources.updateTcp(id, body);
  }

  @Put(':id/config/headers')
  @RoutingOperation('resources.updateHeadersConfig', HeadersConfigDto, { body: UpdateHeadersConfigDto })
  updateHeaders(
    @Param('id') id: string,
    @RoutingBody() body: UpdateHeadersConfigDto,
  ): Promise<HeadersConfigDto> {
    return this.resources.updateHeaders(id, body);
  }

  @Put(':id/config/priority')
  @RoutingOperation('resources.updatePriorityConfig', PriorityConfigDto, { body: UpdatePriorityConfigDto })
  updatePriority(
    @Param('id') id: string,
    @RoutingBody() body: UpdatePriorityConfigDto,
  ): Promise<PriorityConfigDto> {
    return this.resources.updatePriority(id, body);
  }
}
