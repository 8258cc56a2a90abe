import { Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBasicAuth, ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
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
import { ListResourcesQueryDto } from './dto/list-resources.dto';

@ApiTags('routing: resources')
@ApiBasicAuth('basic')
@Controller('api/resources')
export class ResourcesController {
  constructor(private readonly resources: ResourcesService) {}

  @Get()
  @ApiOperation({
    operationId: 'resources.list',
    description: 'Always an array; all statuses unless ?status= is given',
  })
  @ApiResponse({ status: 200, type: [ResourceDto] })
  list(@RoutingQuery() query: ListResourcesQueryDto): Promise<ResourceDto[]> {
    return this.resources.list(query);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'resources.get' })
  @ApiResponse({ status: 200, type: ResourceDto })
  get(@Param('id') id: string): Promise<ResourceDto> {
    return this.resources.get(id);
  }

  @Delete(':id')
  @ApiOperation({ operationId: 'resources.delete', description: 'Only disabled resources' })
  @ApiResponse({ status: 200, type: MessageDto })
  remove(@Param('id') id: string): Promise<MessageDto> {
    return this.resources.remove(id);
  }

  @Post(':id/middlewares')
  @HttpCode(200)
  @ApiOperation({ operationId: 'resources.assignMiddleware' })
  @ApiBody({ type: AssignMiddlewareDto })
  @ApiResponse({ status: 200, type: MiddlewareAssignedDto })
  assignMiddleware(
    @Param('id') id: string,
    @RoutingBody() body: AssignMiddlewareDto,
  ): Promise<MiddlewareAssignedDto> {
    return this.resources.assignMiddleware(id, body);
  }

  @Post(':id/middlewares/bulk')
  @HttpCode(200)
  @ApiOperation({ operationId: 'resources.assignMiddlewares' })
  @ApiBody({ type: AssignMiddlewaresDto })
  @ApiResponse({ status: 200, type: MiddlewaresAssignedDto })
  assignMiddlewares(
    @Param('id') id: string,
    @RoutingBody() body: AssignMiddlewaresDto,
  ): Promise<MiddlewaresAssignedDto> {
    return this.resources.assignMiddlewares(id, body);
  }

  @Delete(':id/middlewares/:middlewareId')
  @ApiOperation({ operationId: 'resources.removeMiddleware' })
  @ApiResponse({ status: 200, type: MessageDto })
  removeMiddleware(
    @Param('id') id: string,
    @Param('middlewareId') middlewareId: string,
  ): Promise<MessageDto> {
    return this.resources.removeMiddleware(id, middlewareId);
  }

  @Get(':id/service')
  @ApiOperation({ operationId: 'resources.getService' })
  @ApiResponse({ status: 200, type: ResourceServiceDto })
  getService(@Param('id') id: string): Promise<ResourceServiceDto> {
    return this.resources.getService(id);
  }

  @Post(':id/service')
  @HttpCode(200)
  @ApiOperation({ operationId: 'resources.assignService' })
  @ApiBody({ type: AssignServiceDto })
  @ApiResponse({ status: 200, type: ServiceAssignedDto })
  assignService(@Param('id') id: string, @RoutingBody() body: AssignServiceDto): Promise<ServiceAssignedDto> {
    return this.resources.assignService(id, body);
  }

  @Delete(':id/service')
  @ApiOperation({ operationId: 'resources.removeService' })
  @ApiResponse({ status: 200, type: MessageDto })
  removeService(@Param('id') id: string): Promise<MessageDto> {
    return this.resources.removeService(id);
  }

  @Put(':id/config/http')
  @ApiOperation({ operationId: 'resources.updateHttpConfig' })
  @ApiBody({ type: UpdateHttpConfigDto })
  @ApiResponse({ status: 200, type: HttpConfigDto })
  updateHttp(@Param('id') id: string, @RoutingBody() body: UpdateHttpConfigDto): Promise<HttpConfigDto> {
    return this.resources.updateHttp(id, body);
  }

  @Put(':id/config/tls')
  @ApiOperation({ operationId: 'resources.updateTlsConfig' })
  @ApiBody({ type: UpdateTlsConfigDto })
  @ApiResponse({ status: 200, type: TlsConfigDto })
  updateTls(@Param('id') id: string, @RoutingBody() body: UpdateTlsConfigDto): Promise<TlsConfigDto> {
    return this.resources.updateTls(id, body);
  }

  @Put(':id/config/tcp')
  @ApiOperation({ operationId: 'resources.updateTcpConfig' })
  @ApiBody({ type: UpdateTcpConfigDto })
  @ApiResponse({ status: 200, type: TcpConfigDto })
  updateTcp(@Param('id') id: string, @RoutingBody() body: UpdateTcpConfigDto): Promise<TcpConfigDto> {
    return this.resources.updateTcp(id, body);
  }

  @Put(':id/config/headers')
  @ApiOperation({ operationId: 'resources.updateHeadersConfig' })
  @ApiBody({ type: UpdateHeadersConfigDto })
  @ApiResponse({ status: 200, type: HeadersConfigDto })
  updateHeaders(
    @Param('id') id: string,
    @RoutingBody() body: UpdateHeadersConfigDto,
  ): Promise<HeadersConfigDto> {
    return this.resources.updateHeaders(id, body);
  }

  @Put(':id/config/priority')
  @ApiOperation({ operationId: 'resources.updatePriorityConfig' })
  @ApiBody({ type: UpdatePriorityConfigDto })
  @ApiResponse({ status: 200, type: PriorityConfigDto })
  updatePriority(
    @Param('id') id: string,
    @RoutingBody() body: UpdatePriorityConfigDto,
  ): Promise<PriorityConfigDto> {
    return this.resources.updatePriority(id, body);
  }
}
