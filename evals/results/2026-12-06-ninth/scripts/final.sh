cd /work/main
A=$(for i in $(cat /tmp/s10/ho-changed.txt); do echo -n "--only $i "; done)
.venv/bin/goliath eval --fixtures evals/suite $A --json > /tmp/s10/ho-final.json 2>/tmp/s10/ho-final.err
B=$(for i in $(cat /tmp/s10/dev-requery-ids.txt); do echo -n "--only $i "; done)
.venv/bin/goliath eval --fixtures evals/suite $B --json > /tmp/s10/dv3-after.json 2>/tmp/s10/dv3-after.err
date > /tmp/s10/final.done
