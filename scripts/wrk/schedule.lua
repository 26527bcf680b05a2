-- POST /v1/schedules: twelve monthly steps (pending confirmation) on a random pre-registered card.
package.path = (os.getenv("VAULT_LOAD_LUA") or "scripts/wrk") .. "/?.lua;" .. package.path
local common = require("common")

setup = common.setup
done = common.done
init = common.init

function request()
   return wrk.format("POST", "/v1/schedules", nil, common.schedule())
end
