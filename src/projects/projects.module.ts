import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DirectoryMiddleware } from './directory.middleware';
import { InstanceService } from './instance.service';
import { ProjectEntity } from './project.entity';
import { ProjectService } from './project.service';
import { GlobalController, ProjectsController } from './projects.controller';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([ProjectEntity])],
  controllers: [GlobalController, ProjectsController],
  providers: [ProjectService, InstanceService, DirectoryMiddleware],
  exports: [ProjectService, InstanceService, DirectoryMiddleware],
})
export class ProjectsModule {}
