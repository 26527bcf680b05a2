-- GET /healthz: the framework's ceiling on this machine (no auth, no database).
package.path = (os.getenv("VAULT_LOAD_LUA") or "scripts/wrk") .. "/?.lua;" .. package.path
local common = require("common")

setup = common.setup
done = common.done

function init()
   common.init()
   healthz = wrk.format("GET", "/healthz", {Host = wrk.host})
end

function request()
   return healthz
end
