import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DirectoriesController } from './directories.controller';
import { DirectoryMiddleware } from './directory.middleware';
import { ExperimentalController } from './experimental.controller';
import { InstanceService } from './instance.service';
import { ProjectEntity } from './project.entity';
import { ProjectService } from './project.service';
import { GlobalController, ProjectsController } from './projects.controller';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([ProjectEntity])],
  controllers: [GlobalController, ProjectsController, ExperimentalController, DirectoriesController],
  providers: [ProjectService, InstanceService, DirectoryMiddleware],
  exports: [ProjectService, InstanceService, DirectoryMiddleware],
})
export class ProjectsModule {}
