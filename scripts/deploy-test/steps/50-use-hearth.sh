# shellcheck shell=bash
# What a new admin does at the appliance's terminal, through the installed `hearth` command, then a note
# through the API and a name through Hearth's DNS server, read with dig.
in_root HEARTH_SETUP_PASSWORD='deploy test password' hearth setup --email owner@example.test >>"$WORK/cli.log" 2>&1 ||
  fail "hearth setup failed"
in_root hearth users list | grep -q owner@example.test || fail "hearth users list does not show the owner"
TOKEN=$(in_root hearth keys create --scope agent --label deploy-test --json | json j.key) || fail "hearth keys create --scope agent failed"
export TOKEN
in_root hearth keys create --scope dav --label phone --json | json j.scope | grep -qx dav || fail "hearth keys create --scope dav failed"
in_root hearth doctor >"$WORK/doctor.txt" 2>&1 || fail "hearth doctor found a failure: $(grep -A1 FAIL "$WORK/doctor.txt" | tr -s ' \n' ' ')"
sed 's/^/  doctor: /' "$WORK/doctor.txt"

id=$(http "$API/notes" POST '{"title":"deploy test","content":"a round trip"}' | json j.data.id) || fail "POST /notes failed"
[ "$(http "$API/notes/$id" | json j.data.content)" = "a round trip" ] || fail "the note did not come back"
NOTE_ID=$id

owner=$(TOKEN='' http "$API/auth/login" POST '{"email":"owner@example.test","password":"deploy test password"}' | json j.data.accessToken) ||
  fail "the owner cannot log in"
zone=$(TOKEN=$owner http "$API/dns/zones" POST '{"zone":"home.test","mode":"authoritative"}' | json j.data.id) || fail "POST /dns/zones failed"
TOKEN=$owner http "$API/dns/zones/$zone/records" POST '{"type":"A","name":"nas","content":"192.0.2.10","ttl":60}' >/dev/null ||
  fail "POST /dns/zones/:id/records failed"
answer=$(in_root dig +short +time=2 +tries=3 -p "$HEARTH_DNS_PORT" @127.0.0.1 nas.home.test A)
[ "$answer" = 192.0.2.10 ] || fail "dig nas.home.test answered '$answer', not 192.0.2.10"
say "dig nas.home.test @127.0.0.1 -p $HEARTH_DNS_PORT: $answer"
