import { Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBody } from '@nestjs/swagger';
import { DataSourceDto, SetActiveDataSourceDto } from './dto/data-source.dto';
import { ActiveDataSourceDto, DataSourceChangedDto, DataSourceListDto } from '../dto/routing-responses.dto';
import { DataSourcesService } from './data-sources.service';
import { RoutingBody } from '../routing-validation';
import { RoutingController, RoutingOperation } from '../routing-operation';

@RoutingController('routing: data sources', 'api/datasource')
export class DataSourcesController {
  constructor(private readonly dataSources: DataSourcesService) {}

  @Get()
  @RoutingOperation('datasource.list', DataSourceListDto, { description: 'Passwords masked' })
  list(): DataSourceListDto {
    return this.dataSources.list();
  }

  @Get('active')
  @RoutingOperation('datasource.active', ActiveDataSourceDto, { description: 'Password masked' })
  active(): ActiveDataSourceDto {
    return this.dataSources.active();
  }

  @Put('active')
  @RoutingOperation('datasource.setActive', DataSourceChangedDto, { body: SetActiveDataSourceDto })
  setActive(@RoutingBody() body: SetActiveDataSourceDto): DataSourceChangedDto {
    return this.dataSources.setActive(body);
  }

  @Put(':name')
  @RoutingOperation('datasource.update', DataSourceChangedDto, { body: DataSourceDto })
  update(@Param('name') name: string, @RoutingBody() body: DataSourceDto): DataSourceChangedDto {
    return this.dataSources.update(name, body);
  }

  @Post(':name/test')
  @HttpCode(200)
  @RoutingOperation('datasource.test', DataSourceChangedDto, {
    description: 'Empty body: test the stored settings of :name',
  })
  @ApiBody({ type: DataSourceDto, required: false })
  test(
    @Param('name') name: string,
    @RoutingBody({ emptyAllowed: true }) body?: DataSourceDto,
  ): Promise<DataSourceChangedDto> {
    return this.dataSources.test(name, body);
  }
}
