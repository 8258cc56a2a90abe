import { Module } from '@nestjs/common';
import { SessionsModule } from '../sessions/sessions.module';
import { TodoService } from '../sessions/todo.service';
import { TODO_STORE, ToolRegistry } from './tool-registry.service';
import { ToolsController } from './tools.controller';

@Module({
  imports: [SessionsModule],
  controllers: [ToolsController],
  providers: [ToolRegistry, { provide: TODO_STORE, useExisting: TodoService }],
  exports: [ToolRegistry],
})
export class ToolsModule {}
