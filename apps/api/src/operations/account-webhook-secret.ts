import { webhookSecretResponse, webhookSecretRotateRequest } from "@browserfleet/contracts";
import { account } from "./account.ts";
import { accountView, requireKey } from "./account-access.ts";
import { defineOperation } from "./operation.ts";

const path = `${account.path}/webhook-secret`;

/** GET: the account's webhook signing secret, made on first read. */
export const webhookSecret = defineOperation({
  name: "webhookSecret",
  method: "GET",
  path,
  summary:
    "The account's webhook signing secret (made on first read): verify deliveries with it and a Standard Webhooks library",
  response: webhookSecretResponse,
  free: accountView("The secret, and the one it replaced while that still signs", "WebhookSecret"),
  fromHttp: () => undefined,
  run: async (ctx, _input, { caller }) => ctx.webhookSecrets.get(requireKey(caller).accountId),
});

/** POST: a new secret; the replaced one keeps signing beside it for overlapMinutes. */
export const webhookSecretRotate = defineOperation({
  name: "webhookSecretRotate",
  method: "POST",
  path,
  summary:
    "Rotate the account's webhook signing secret: deliveries carry a signature by both secrets for overlapMinutes, so receivers switch without losing one",
  request: webhookSecretRotateRequest,
  response: webhookSecretResponse,
  free: {
    ...accountView("The new secret, and the replaced one while it still signs", "WebhookSecret"),
    errors: [400, 401, 429],
  },
  run: async (ctx, input, { caller }) =>
    ctx.webhookSecrets.rotate(requireKey(caller).accountId, input.overlapMinutes * 60_000),
});
