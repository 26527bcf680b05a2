-- GET /v1/secure-cards/{merchantReference} of a random pre-registered card.
package.path = (os.getenv("VAULT_LOAD_LUA") or "scripts/wrk") .. "/?.lua;" .. package.path
local common = require("common")

setup = common.setup
done = common.done
init = common.init

function request()
   return wrk.format("GET", "/v1/secure-cards/" .. common.seeded_reference(), nil, nil)
end
