import { PROFILE_NAME, profileDeleteRequest, profileDeleteResponse } from "@browserfleet/contracts";
import { ApiError } from "../errors.ts";
import { requireKey } from "./account-access.ts";
import { defineOperation } from "./operation.ts";
import { profiles } from "./profiles.ts";

export const profileDelete = defineOperation({
  name: "profileDelete",
  method: "DELETE",
  path: `${profiles.path}/{name}`,
  summary: "Delete a saved browser profile of the account (free)",
  params: { name: "The profile's name" },
  request: profileDeleteRequest,
  response: profileDeleteResponse,
  free: { tags: ["profiles"], auth: "key", ok: "Deleted", errors: [401, 404, 429] },
  tool: {
    name: "web_profile_delete",
    title: "Delete a saved browser profile",
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    description:
      "Delete one of this account's saved browser profiles (its cookies and site storage are gone for good; a session still open with it keeps what it loaded). Free; needs an API key.",
  },
  fromHttp: (http) => ({ name: String(http.params.name) }),
  run: async (ctx, input, { caller }) => {
    const auth = requireKey(caller);
    const { name } = input;
    // A name no profile can have names no profile: 404 like any other (the path takes any text).
    if (!PROFILE_NAME.test(name) || !(await ctx.profiles.remove(auth.accountId, name)))
      throw new ApiError("profile_not_found", `this account has no profile named ${name}`, [
        { field: "name", message: "no such profile" },
      ]);
    return { success: true as const, name, deleted: true as const };
  },
});
