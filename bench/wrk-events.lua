-- wrk script: single-event POST /events with a fresh UUID per request (the site id comes from the environment).
local site = os.getenv("BENCH_SITE") or "bench"
math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
local hex = "0123456789abcdef"
local function uuid()
  local out = {}
  for i = 1, 36 do
    if i == 9 or i == 14 or i == 19 or i == 24 then out[i] = "-"
    elseif i == 15 then out[i] = "4"
    else local n = math.random(1, 16); out[i] = hex:sub(n, n) end
  end
  return table.concat(out)
end
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer " .. site
wrk.headers["Content-Type"] = "application/json"
wrk.headers["User-Agent"] = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"
request = function()
  local body = '{"id":"' .. uuid() .. '","site_id":"' .. site .. '","anon_id":"v' .. math.random(1, 50000) ..
    '","ts":"' .. os.date("!%Y-%m-%dT%H:%M:%SZ") .. '","type":"pageview","url":"https://bench.example/page/' ..
    math.random(1, 500) .. '?utm_source=bench","referrer":"https://www.google.com/"}'
  return wrk.format(nil, "/events", nil, body)
end
done = function(summary, latency, requests)
  local non2xx = summary.errors.status
  io.write(string.format('{"requests":%d,"seconds":%f,"non2xx":%d,"socketErrors":%d}\n', summary.requests,
    summary.duration / 1e6, non2xx, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
