import { OneOf } from '../../routing-validation';

export class ListResourcesQueryDto {
  @OneOf({}, ['active', 'disabled', 'all'])
  status?: 'active' | 'disabled' | 'all';

  @OneOf({ description: 'id (default) or recent: the resources discovered last first' }, ['id', 'recent'])
  sort?: 'id' | 'recent';
}
