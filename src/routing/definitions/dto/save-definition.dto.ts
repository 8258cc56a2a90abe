import { ApiProperty } from '@nestjs/swagger';
import { ValidationIssue } from '../../../common/errors';
import { middlewareIssues, serviceIssues } from '../definition-types';
import { RequiredObject, RequiredText } from '../../routing-validation';

/** Body of POST/PUT `/api/middlewares` and `/api/services` (full replace). */
export class SaveDefinitionDto {
  /** What is wrong with the config for its type; each kind's body class names its rules. */
  static readonly configIssues: (type: string, config: unknown) => ValidationIssue[] = () => [];

  @RequiredText({ example: 'Authelia' })
  name: string;

  @RequiredText({ description: 'Traefik middleware or service kind', example: 'forwardAuth' })
  type: string;

  @RequiredObject(
    {
      type: 'object',
      additionalProperties: true,
      description: 'The body Traefik expects under the type key',
    },
    // Checked for the type once the type is given (its issues may name `type`).
    (config, body, at) => {
      const type = (body as { type?: unknown }).type;
      if (typeof type !== 'string' || type.trim() === '') return [];
      const kind = body.constructor as typeof SaveDefinitionDto;
      return kind.configIssues(type, config).map((i) => ({ ...i, path: [...at.slice(0, -1), ...i.path] }));
    },
  )
  config: Record<string, unknown>;
}

export class SaveMiddlewareDto extends SaveDefinitionDto {
  static override readonly configIssues = middlewareIssues;
}

export class SaveServiceDto extends SaveDefinitionDto {
  static override readonly configIssues = serviceIssues;
}

export class DefinitionDto extends SaveDefinitionDto {
  @ApiProperty({ description: '16 hex chars (seeded rows keep their slugs)', example: '3f2a9c0d1e4b5a67' })
  id: string;
}

export class MessageDto {
  @ApiProperty()
  message: string;
}
