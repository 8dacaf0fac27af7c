import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  type DocumentNode,
  type ExecutionResult,
  type FormattedExecutionResult,
  GraphQLError,
  type GraphQLFormattedError,
  getOperationAST,
  parse,
  specifiedRules,
  validate,
} from 'graphql';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { type WebSocket, WebSocketServer } from 'ws';
import { actorFromToken } from '../src/auth/bearer';
import { GRAPHQL_DEFAULTS, type GraphqlLimits } from '../src/config/graphql-options';
import { type Actor, createContext } from '../src/core/context';
import { HttpError } from '../src/core/errors';
import type { Db } from '../src/db';
import { stopEventFeeds } from '../src/services/events/feed';
import { formatError, logGraphqlFault } from './errors';
import { limitRules, withLimits } from './limits';
import { gatewaySchema } from './schema';

/**
 * GraphQL subscriptions over WebSocket (the `graphql-transport-ws` protocol of `graphql-ws`) at
 * /graphql on the HTTP listener (ADR 18). The bearer token comes in `connection_init`
 * (`{ "Authorization": "Bearer <token>" }` or `{ "token": "<token>" }`) and is verified as on the HTTP
 * front: missing or invalid → close 4401; a browser origin the token does not allow → close 4403.
 * The token is verified again every `reverifyMs`: expired, revoked or logged out → close 4401.
 * Only subscription operations are served here, checked against the gateway's limits; queries and
 * mutations go to POST /graphql.
 */
export const WS_LIMITS = {
  /** How often a connection's token is verified again. */
  reverifyMs: 30_000,
  /** Subscriptions one connection may hold at once. */
  maxSubscriptions: 20,
  /** Largest WebSocket message accepted, in bytes. */
  maxPayload: 64 * 1024,
};

export interface SubscriptionServerOptions {
  /** Fixed public base URL (as AppOptions.hostname); derived from the upgrade request when unset. */
  hostname?: string;
  limits?: GraphqlLimits;
}

export interface SubscriptionServer {
  /** Completes a WebSocket upgrade of /graphql and serves the connection. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes every WebSocket connection (1001), ends the event feeds and waits for their polls. */
  close(): Promise<void>;
}

interface Session {
  actor: Actor;
  token: string;
  baseUrl: string;
  timer: NodeJS.Timeout;
}

/** The bearer token of a `connection_init` payload. */
function tokenOf(params: Record<string, unknown> | undefined): string | undefined {
  if (!params) return undefined;
  const header = params.Authorization ?? params.authorization;
  if (typeof header === 'string') return /^bearer\s+(.+)$/i.exec(header.trim())?.[1];
  return typeof params.token === 'string' && params.token ? params.token : undefined;
}

/** A browser sends its page's origin: allowed when it is this server's or the token allows it (as CORS on /graphql). */
function originAllowed(origin: string | undefined, host: string | undefined, baseUrl: string, allowed: string[] = []): boolean {
  if (!origin || allowed.includes('*') || allowed.includes(origin)) return true;
  try {
    return new URL(origin).host === host || new URL(origin).origin === new URL(baseUrl).origin;
  } catch {
    return false;
  }
}

function refused(message: string, code: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code, http: { status: 400 } } });
}

/** Errors as the HTTP front renders them (resolvers/errors.ts): service errors keep their status and Keycloak body. */
function formatted(e: GraphQLError): GraphQLFormattedError {
  if (e.originalError instanceof HttpError) return formatError(e.toJSON(), e.originalError);
  if (!e.originalError && !e.extensions?.code) {
    // graphql-js's own parse and validation errors; Apollo names them the same way on the HTTP front.
    const code = e.message.startsWith('Syntax Error') ? 'GRAPHQL_PARSE_FAILED' : 'GRAPHQL_VALIDATION_FAILED';
    return { ...e.toJSON(), extensions: { ...e.extensions, code, http: { status: 400 } } };
  }
  logGraphqlFault(e, { method: 'WS', route: '/graphql subscription' });
  return formatError(e.toJSON(), e);
}

/**
 * Serves graphql-ws over the gateway schema with its limits, for the WebSocket upgrades of /graphql
 * the HTTP listener hands to `handleUpgrade` (src/server.ts: built on the first one).
 */
export async function subscriptionServer(db: Db, opts: SubscriptionServerOptions = {}): Promise<SubscriptionServer> {
  const limits = opts.limits ?? GRAPHQL_DEFAULTS;
  const schema = withLimits(await gatewaySchema(), limits);
  const rules = [...specifiedRules, ...limitRules(limits)];
  const sessions = new WeakMap<WebSocket, Session>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: WS_LIMITS.maxPayload });

  const disposable = useServer(
    {
      schema,
      isProd: true,
      onConnect: async (ctx) => {
        const { socket, request } = ctx.extra;
        const token = tokenOf(ctx.connectionParams);
        const ip = request.socket.remoteAddress;
        const baseUrl = opts.hostname ? opts.hostname.replace(/\/+$/, '') : `http://${request.headers.host}`;
        const actor = token ? await actorFromToken(db, token, ip, baseUrl) : null;
        if (!token || !actor) {
          socket.close(CloseCode.Unauthorized, 'Unauthorized');
          return false;
        }
        if (!originAllowed(request.headers.origin, request.headers.host, baseUrl, actor.allowedOrigins)) return false; // 4403
        const timer = setInterval(() => {
          actorFromToken(db, token, ip, baseUrl).then(
            (still) => {
              if (!still) socket.close(CloseCode.Unauthorized, 'Token expired or revoked');
            },
            () => undefined,
          );
        }, WS_LIMITS.reverifyMs);
        timer.unref();
        sessions.set(socket, { actor, token, baseUrl, timer });
        return true;
      },
      onClose: (ctx) => {
        const session = sessions.get(ctx.extra.socket);
        if (session) clearInterval(session.timer);
      },
      onSubscribe: (ctx, _id, payload) => {
        const session = sessions.get(ctx.extra.socket);
        if (!session) return [refused('Unauthorized', 'UNAUTHENTICATED')];
        if (Object.keys(ctx.subscriptions).length > WS_LIMITS.maxSubscriptions) {
          return [refused(`At most ${WS_LIMITS.maxSubscriptions} subscriptions per connection.`, 'TOO_MANY_SUBSCRIPTIONS')];
        }
        let document: DocumentNode;
        try {
          document = parse(payload.query, { maxTokens: limits.maxTokens });
        } catch (e) {
          return [e instanceof GraphQLError ? e : refused(String(e), 'GRAPHQL_PARSE_FAILED')];
        }
        const errors = validate(schema, document, rules);
        if (errors.length) return errors;
        const op = getOperationAST(document, payload.operationName);
        if (!op) return [refused('Unable to identify the operation to run.', 'BAD_REQUEST')];
        if (op.operation !== 'subscription') {
          return [refused('Only subscriptions are served over WebSocket: send queries and mutations to POST /graphql.', 'BAD_REQUEST')];
        }
        return {
          schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue: createContext(db, session.actor, session.baseUrl, 'idserver.graphql'),
        };
      },
      onNext: (_ctx, _id, _payload, _args, result: ExecutionResult): FormattedExecutionResult | undefined =>
        result.errors ? { ...result, errors: result.errors.map(formatted) } : undefined,
      onError: (_ctx, _id, _payload, errors) => errors.map(formatted),
    },
    wss,
  );

  return {
    handleUpgrade(req, socket, head) {
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    },
    async close() {
      await disposable.dispose();
      await stopEventFeeds(db);
    },
  };
}
