-- Shared by the load-test scripts: authentication, thread ids, card data and the result line.
-- Environment (set by scripts/load-test.sh): VAULT_LOAD_KEY (admin API key), VAULT_LOAD_RUN (a tag
-- unique to this wrk run, so merchant references never repeat across runs), VAULT_LOAD_SEEDED
-- (how many cards seed-0 ... seed-N-1 exist), VAULT_LOAD_VERIFY (true|false for registrations).
local common = {}

local next_thread_id = 0

-- Gives each wrk thread its own id (wrk calls setup once per thread, in the main Lua state).
function common.setup(thread)
   next_thread_id = next_thread_id + 1
   thread:set("thread_id", next_thread_id)
end

function common.init()
   wrk.headers["Authorization"] = "Bearer " .. (os.getenv("VAULT_LOAD_KEY") or "")
   wrk.headers["Content-Type"] = "application/json"
   common.run = os.getenv("VAULT_LOAD_RUN") or tostring(os.time())
   common.seeded = tonumber(os.getenv("VAULT_LOAD_SEEDED") or "1000")
   common.verify = os.getenv("VAULT_LOAD_VERIFY") or "false"
   common.counter = 0
   math.randomseed((thread_id or 0) * 7919 + os.time())
end

-- Public test card numbers only (Stripe, Adyen and network documentation).
local numbers = {
   "4242424242424242", "4111111111111111", "5555555555554444", "5105105105105100",
   "378282246310005", "6011111111111117", "3530111333300000", "2223003122003222",
}

-- A registration body with a merchant reference no other request of any run uses. Its numbers are
-- kept apart by letters: digits joined by anything else read as one number, and a run of them that
-- passes for a card number is refused in free text (422 card_number_not_allowed).
function common.registration()
   common.counter = common.counter + 1
   local number = numbers[(common.counter % #numbers) + 1]
   local cvv = (#number == 15) and "1234" or "123"
   return string.format(
      '{"merchantReference":"ld-%s-t%d-n%d","method":"keyed","card":{"number":"%s","expiryDate":"1230",' ..
      '"holderName":"Ada Lovelace","cvv":"%s"},"customer":{"email":"ada@example.com","country":"GB"},"verify":%s}',
      common.run, thread_id or 0, common.counter, number, cvv, common.verify)
end

-- The merchant reference of a random pre-registered card.
function common.seeded_reference()
   return string.format("seed-%d", math.random(0, common.seeded - 1))
end

-- A schedule of twelve monthly steps on a random pre-registered card.
function common.schedule()
   return string.format(
      '{"merchantReference":"%s","amount":1999,"currency":"USD","description":"Gym","type":"monthly",' ..
      '"startDate":"2029-01-31","endType":"count","endCount":12,"day":31,"hour":9,"minute":0}',
      common.seeded_reference())
end

-- One machine-readable line for load-test.sh: counts, rate, latency percentiles (ms), errors.
function common.done(summary, latency, requests)
   local errors = summary.errors
   io.write(string.format(
      "RESULT requests=%d duration_s=%.3f rps=%.1f p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f " ..
      "connect=%d read=%d write=%d status=%d timeout=%d\n",
      summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
      latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
      errors.connect, errors.read, errors.write, errors.status, errors.timeout))
end

return common
