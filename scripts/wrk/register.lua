-- POST /v1/secure-cards: a new keyed card per request, each with its own merchant reference.
package.path = (os.getenv("VAULT_LOAD_LUA") or "scripts/wrk") .. "/?.lua;" .. package.path
local common = require("common")

setup = common.setup
done = common.done
init = common.init

function request()
   return wrk.format("POST", "/v1/secure-cards", nil, common.registration())
end
