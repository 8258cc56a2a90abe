import { MAX_PRIORITY } from './update-router.dto';
import { OptionalInteger, RequiredList, RequiredText } from '../../routing-validation';

export class AssignMiddlewareDto {
  @RequiredText()
  middleware_id: string;

  @OptionalInteger({ description: 'Higher runs first; missing or ≤ 0 means 200', default: 200 }, MAX_PRIORITY)
  priority?: number;
}

export class AssignMiddlewaresDto {
  @RequiredList({ type: [AssignMiddlewareDto] }, AssignMiddlewareDto)
  middlewares: AssignMiddlewareDto[];
}

export class AssignServiceDto {
  @RequiredText()
  service_id: string;
}
