import { Body, Controller, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBasicAuth, ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { DataSourceDto, SetActiveDataSourceDto } from './dto/data-source.dto';
import { ActiveDataSourceDto, DataSourceChangedDto, DataSourceListDto } from './dto/routing-responses.dto';
import { DataSourcesService } from './data-sources.service';

@ApiTags('routing: data sources')
@ApiBasicAuth('basic')
@Controller('api/datasource')
export class DataSourcesController {
  constructor(private readonly dataSources: DataSourcesService) {}

  @Get()
  @ApiOperation({ operationId: 'datasource.list', description: 'Passwords masked' })
  @ApiResponse({ status: 200, type: DataSourceListDto })
  list() {
    return this.dataSources.list();
  }

  @Get('active')
  @ApiOperation({ operationId: 'datasource.active', description: 'Password masked' })
  @ApiResponse({ status: 200, type: ActiveDataSourceDto })
  active() {
    return this.dataSources.active();
  }

  @Put('active')
  @ApiOperation({ operationId: 'datasource.setActive' })
  @ApiBody({ type: SetActiveDataSourceDto })
  @ApiResponse({ status: 200, type: DataSourceChangedDto })
  setActive(@Body() body: unknown) {
    return this.dataSources.setActive(body);
  }

  @Put(':name')
  @ApiOperation({ operationId: 'datasource.update' })
  @ApiBody({ type: DataSourceDto })
  @ApiResponse({ status: 200, type: DataSourceChangedDto })
  update(@Param('name') name: string, @Body() body: unknown) {
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
  test(@Param('name') name: string, @Body() body: unknown) {
    return this.dataSources.test(name, body);
  }
}
