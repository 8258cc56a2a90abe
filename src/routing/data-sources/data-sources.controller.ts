import { Controller, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBasicAuth, ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { DataSourceDto, SetActiveDataSourceDto } from './dto/data-source.dto';
import { ActiveDataSourceDto, DataSourceChangedDto, DataSourceListDto } from '../dto/routing-responses.dto';
import { DataSourcesService } from './data-sources.service';
import { RoutingBody } from '../routing-validation';

@ApiTags('routing: data sources')
@ApiBasicAuth('basic')
@Controller('api/datasource')
export class DataSourcesController {
  constructor(private readonly dataSources: DataSourcesService) {}

  @Get()
  @ApiOperation({ operationId: 'datasource.list', description: 'Passwords masked' })
  @ApiResponse({ status: 200, type: DataSourceListDto })
  list(): DataSourceListDto {
    return this.dataSources.list();
  }

  @Get('active')
  @ApiOperation({ operationId: 'datasource.active', description: 'Password masked' })
  @ApiResponse({ status: 200, type: ActiveDataSourceDto })
  active(): ActiveDataSourceDto {
    return this.dataSources.active();
  }

  @Put('active')
  @ApiOperation({ operationId: 'datasource.setActive' })
  @ApiBody({ type: SetActiveDataSourceDto })
  @ApiResponse({ status: 200, type: DataSourceChangedDto })
  setActive(@RoutingBody() body: SetActiveDataSourceDto): DataSourceChangedDto {
    return this.dataSources.setActive(body);
  }

  @Put(':name')
  @ApiOperation({ operationId: 'datasource.update' })
  @ApiBody({ type: DataSourceDto })
  @ApiResponse({ status: 200, type: DataSourceChangedDto })
  update(@Param('name') name: string, @RoutingBody() body: DataSourceDto): DataSourceChangedDto {
    return this.dataSources.update(name, body);
  }

  @Post(':name/test')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'datasource.test',
    description: 'Empty body: test the stored settings of :name',
  })
  @ApiBody({ type: DataSourceDto, required: false })
  @ApiResponse({ status: 200, type: DataSourceChangedDto })
  test(
    @Param('name') name: string,
    @RoutingBody({ emptyAllowed: true }) body?: DataSourceDto,
  ): Promise<DataSourceChangedDto> {
    return this.dataSources.test(name, body);
  }
}
