import 'reflect-metadata';
import { ValidationError } from '../common/errors';
import { AssignMiddlewaresDto } from './resources/dto/assign-middleware.dto';
import { DataSourceDto } from './data-sources/dto/data-source.dto';
import { SaveMiddlewareDto } from './definitions/dto/save-definition.dto';
import { UpdateHeadersConfigDto } from './resources/dto/update-router.dto';
import { checkRequest } from '../common/validation/request-fields';
import { RoutingValidationPipe } from './routing-validation';

/** The 400's message as the routing surface renders it. */
const messageOf = (dto: new () => object, value: unknown): string =>
  new ValidationError(checkRequest(dto, value).issues, value).message;

describe('routing request checks', () => {
  it('names each bad field once, in declaration order, then the rules of the type', () => {
    expect(messageOf(SaveMiddlewareDto, { name: '', type: 'nope', config: {} })).toBe(
      'name: is required and must be a non-empty string; type: Invalid middleware type: nope',
    );
    expect(messageOf(SaveMiddlewareDto, { name: 'a', type: 'headers', config: [] })).toBe(
      'config: is required and must be a JSON object',
    );
  });

  it('reports a body that is not an object, then the fields of an empty one', () => {
    expect(messageOf(SaveMiddlewareDto, 'text')).toBe(
      '(root): must be a JSON object; name: is required and must be a non-empty string; ' +
        'type: is required and must be a non-empty string; config: is required and must be a JSON object',
    );
  });

  it('stops a list at 50 issues (a million bad items make one short answer)', () => {
    const { issues } = checkRequest(AssignMiddlewaresDto, { middlewares: new Array<number>(1_000_000).fill(0) });
    expect(issues).toHaveLength(50);
    expect(issues.at(-1)?.path).toEqual(['middlewares', 24, 'middleware_id']);
  });

  it('checks nested items and map entries under their own paths', () => {
    expect(messageOf(AssignMiddlewaresDto, { middlewares: [1, { middleware_id: 'x', priority: 1.5 }] })).toBe(
      'middlewares.0: must be a JSON object; middlewares.0.middleware_id: is required and must be a non-empty string; ' +
        'middlewares.1.priority: must be an integer',
    );
    expect(messageOf(UpdateHeadersConfigDto, { custom_headers: { 'X-Num': 5, 'a b': 'x' } })).toBe(
      'custom_headers.X-Num: must be a string; custom_headers.a b: is not a valid header name',
    );
    expect(
      messageOf(DataSourceDto, { type: 'traefik', url: 'http://a', basic_auth: {}, basicAuth: {} }),
    ).toBe('basicAuth: send the credentials once, as basic_auth or basicAuth');
  });

  it('hands the handler an instance with the declared fields only', () => {
    const { body, issues } = checkRequest(
      AssignMiddlewaresDto,
      JSON.parse('{"middlewares": [], "extra": 1, "__proto__": {"polluted": true}}'),
    );
    expect(issues).toEqual([]);
    expect(body).toBeInstanceOf(AssignMiddlewaresDto);
    expect({ ...body }).toEqual({ middlewares: [] });
    expect(Object.getPrototypeOf(body)).toBe(AssignMiddlewaresDto.prototype);
  });

  it('lets an empty body through as undefined where the route allows it', () => {
    const pipe = new RoutingValidationPipe({ emptyAllowed: true });
    expect(pipe.transform({}, { type: 'body', metatype: DataSourceDto })).toBeUndefined();
    expect(() => pipe.transform({ url: 'x' }, { type: 'body', metatype: DataSourceDto })).toThrow(
      ValidationError,
    );
  });
});
