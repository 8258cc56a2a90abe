import { Body, Controller, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { DataSourceDto, SetActiveDataSourceDto } from './dto/data-source.dto';
import { DataSourcesService } from './data-sources.service';

@ApiTags('routing: data sources')
@Controller('api/datasource')
export class DataSourcesController {
  constructor(private readonly dataSources: DataSourcesService) {}

  @Get()
  @ApiOperation({ operationId: 'datasource.list', description: 'Passwords masked' })
  list() {
    return this.dataSources.list();
  }

  @Get('active')
  @ApiOperation({ operationId: 'datasource.active', description: 'Password masked' })
  active() {
    return this.dataSources.active();
  }

  @Put('active')
  @ApiOperation({ operationId: 'datasource.setActive' })
  @ApiBody({ type: SetActiveDataSourceDto })
  setActive(@Body() body: unknown) {
    return this.dataSources.setActive(body);
  }

  @Put(':name')
  @ApiOperation({ operationId: 'datasource.update' })
  @ApiBody({ type: DataSourceDto })
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
  test(@Param('name') name: string, @Body() body: unknown) {
    return this.dataSources.test(name, body);
  }
}
