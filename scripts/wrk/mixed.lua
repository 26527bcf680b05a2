-- A merchant back end's mix: 70% retrievals, 10% card lists, 12% registrations, 8% schedules.
package.path = (os.getenv("VAULT_LOAD_LUA") or "scripts/wrk") .. "/?.lua;" .. package.path
local common = require("common")

setup = common.setup
done = common.done
init = common.init

function request()
   local roll = math.random(100)
   if roll <= 70 then
      return wrk.format("GET", "/v1/secure-cards/" .. common.seeded_reference(), nil, nil)
   elseif roll <= 80 then
      return wrk.format("GET", "/v1/secure-cards?limit=20", nil, nil)
   elseif roll <= 92 then
      return wrk.format("POST", "/v1/secure-cards", nil, common.registration())
   end
   return wrk.format("POST", "/v1/schedules", nil, common.schedule())
end
