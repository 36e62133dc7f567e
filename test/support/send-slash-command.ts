import { buildSlashCommandRequest } from "../../src/sandbox/web-api-signed-requests.js";

/** Posts a signed `/connect-roll TEXT` to a bot listening on `127.0.0.1:port` (HTTP mode), as Slack would. */
export async function sendSlashCommand(input: {
  readonly port: number;
  readonly secret: string;
  readonly text: string;
  readonly user: string;
  readonly channel: string;
  readonly team: string;
  readonly triggerId: string;
}): Promise<Response> {
  const request = buildSlashCommandRequest({
    secret: input.secret,
    command: "/connect-roll",
    text: input.text,
    userId: input.user,
    userName: input.user,
    channelId: input.channel,
    teamId: input.team,
    responseUrl: "http://127.0.0.1:9/response",
    triggerId: input.triggerId,
    nowSeconds: Math.floor(Date.now() / 1000),
  });
  return fetch(`http://127.0.0.1:${input.port}/slack/events`, {
    method: "POST",
    headers: request.headers,
    body: request.body,
  });
}
