import { GraphQLBoolean, GraphQLFloat, GraphQLString } from 'graphql';
import { Ctx, Field, ObjectType, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../src/core/context';
import { getServerInfo } from '../../src/services/realms/server-info';
import type { Rep } from '../types/common';
import { JSONObject } from '../types/scalars';

@ObjectType({ description: 'Server version, time and uptime (serverinfo systemInfo).' })
export class SystemInfo {
  @Field(() => GraphQLString, { description: 'The Keycloak version whose admin API the server follows.' }) version!: string;
  @Field(() => GraphQLString) serverTime!: string;
  @Field(() => GraphQLString) uptime!: string;
  @Field(() => GraphQLFloat) uptimeMillis!: number;
}

@ObjectType({ description: 'Heap memory of the server (serverinfo memoryInfo), in bytes.' })
export class MemoryInfo {
  @Field(() => GraphQLFloat) total!: number;
  @Field(() => GraphQLFloat) used!: number;
  @Field(() => GraphQLFloat) free!: number;
  @Field(() => GraphQLFloat) freePercentage!: number;
}

@ObjectType({ description: 'A server feature and whether it is enabled.' })
export class ServerFeature {
  @Field(() => GraphQLString) name!: string;
  @Field(() => GraphQLString) label!: string;
  @Field(() => GraphQLString) type!: string;
  @Field(() => GraphQLBoolean) enabled!: boolean;
}

@ObjectType({ description: 'What the server offers (GET /admin/serverinfo).' })
export class ServerInfo {
  @Field(() => SystemInfo) systemInfo!: SystemInfo;
  @Field(() => MemoryInfo) memoryInfo!: MemoryInfo;
  @Field(() => [ServerFeature]) features!: ServerFeature[];
  @Field(() => JSONObject, { description: 'Theme type → themes.' }) themes!: Rep;
  @Field(() => JSONObject, { description: 'SPI interface name → component types.' }) componentTypes!: Rep;
  @Field(() => JSONObject, { description: 'Protocol → protocol mapper types.' }) protocolMapperTypes!: Rep;
  @Field(() => JSONObject, { description: 'SPI name → provider ids.' }) providers!: Rep;
  @Field(() => JSONObject, { description: 'The whole ServerInfoRepresentation, exactly as the REST GET returns it.' })
  representation!: Rep;
}

/** `serverInfo`: the serverinfo resource (any admin). */
@Resolver(() => ServerInfo)
export class ServerInfoResolver {
  @Query(() => ServerInfo, { description: 'Server information (GET /admin/serverinfo).' })
  async serverInfo(@Ctx() ctx: RequestContext): Promise<Rep> {
    const info = await getServerInfo(ctx);
    return { ...info, representation: info };
  }
}
