import { Global, Module } from '@nestjs/common';
import { DirectoriesController } from './directories.controller';
import { DirectoryMiddleware } from './directory.middleware';
import { ExperimentalController } from './experimental.controller';
import { InstanceService } from './instance.service';
import { ProjectRepository } from './project.repository';
import { ProjectService } from './project.service';
import { GlobalController, ProjectsController } from './projects.controller';

@Global()
@Module({
  controllers: [GlobalController, ProjectsController, ExperimentalController, DirectoriesController],
  providers: [ProjectRepository, ProjectService, InstanceService, DirectoryMiddleware],
  exports: [ProjectService, InstanceService, DirectoryMiddleware],
})
export class ProjectsModule {}
