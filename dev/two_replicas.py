"""Two replicas of klens behind HAProxy with cookie affinity, as the Helm chart runs them, against
the dev stack (run through dev/two-replicas): sign-in, a sample of the authorization matrix, one
processor created from both replicas at the same moment, and a copy job whose replica is killed
mid-way and started again. Kafka, Flink and the audit files are the witnesses.

    dev/two-replicas KLENS_BIN
"""

import http.cookiejar
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LB = "http://127.0.0.1:18100"
PORTS = {"a": 18101, "b": 18102}
KAFKA = "127.0.0.1:19092"
FLINK = "http://127.0.0.1:18086"
OUT = os.path.join(ROOT, "target", "two-replicas")


def log(message):
    print(f"two-replicas: {message}", flush=True)


def fail(message):
    raise SystemExit(f"two-replicas: FAILED: {message}")


class Replicas:
    """The two klens processes and HAProxy in front of them."""

    def __init__(self, binary):
        self.binary = binary
        self.processes = {}
        self.haproxy = None
        os.makedirs(OUT, exist_ok=True)
        self.empty = tempfile.mkdtemp()
        for name, port in PORTS.items():
            env = dict(os.environ, KLENS_DEMO_PORT="18100", KLENS_DEMO_AUDIT=f"{OUT}/{name}-audit.ndjson")
            config = subprocess.run([f"{ROOT}/dev/demo-config", "--auth"], env=env, check=True,
                                    capture_output=True, text=True).stdout
            # Both listen on ports of their own; sign-in comes back through the balancer.
            config = config.replace("listen: 127.0.0.1:18100", f"listen: 127.0.0.1:{port}", 1)
            with open(f"{OUT}/{name}.yaml", "w") as f:
                f.write(config)
            try:
                os.remove(f"{OUT}/{name}-audit.ndjson")
            except FileNotFoundError:
                pass
        with open(f"{OUT}/haproxy.cfg", "w") as f:
            f.write(f"""global
  maxconn 256
defaults
  mode http
  timeout connect 5s
  timeout client 300s
  timeout server 300s
frontend web
  bind 127.0.0.1:18100
  default_backend klens
backend klens
  balance roundrobin
  cookie KLENS_REPLICA insert indirect nocache httponly
  option httpchk GET /ready
  server a 127.0.0.1:{PORTS['a']} check inter 500 fall 2 rise 1 cookie a
  server b 127.0.0.1:{PORTS['b']} check inter 500 fall 2 rise 1 cookie b
""")

    def start(self, name):
        out = open(f"{OUT}/{name}.log", "a")
        self.processes[name] = subprocess.Popen(
            [self.binary, "--config", f"{OUT}/{name}.yaml"], cwd=self.empty, stdout=out,
            stderr=subprocess.STDOUT)
        wait_ready(f"http://127.0.0.1:{PORTS[name]}", self.processes[name], name)

    def kill(self, name):
        process = self.processes.pop(name)
        process.send_signal(signal.SIGKILL)
        process.wait()

    def start_all(self):
        for name in PORTS:
            self.start(name)
        self.haproxy = subprocess.Popen(["haproxy", "-f", f"{OUT}/haproxy.cfg"],
                                        stdout=open(f"{OUT}/haproxy.log", "w"),
                                        stderr=subprocess.STDOUT)
        wait_ready(LB, self.haproxy, "haproxy")

    def stop_all(self):
        for process in list(self.processes.values()) + [self.haproxy]:
            if process and process.poll() is None:
                process.terminate()
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    process.kill()


def wait_ready(url, process, name):
    for _ in range(120):
        if process.poll() is not None:
            fail(f"{name} exited; see {OUT}/{name}.log")
        try:
            with urllib.request.urlopen(f"{url}/ready", timeout=2) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        time.sleep(0.5)
    fail(f"{name} not ready after a minute")


class Browser:
    """One person's cookies (klens's session and the balancer's), kept by one client."""

    def __init__(self, replica=None):
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        if replica:
            # Pinned to one replica, as the balancer's cookie would after a first answer.
            self.jar.set_cookie(http.cookiejar.Cookie(
                0, "KLENS_REPLICA", replica, None, False, "127.0.0.1", False, False, "/", True,
                False, None, False, None, None, {}))

    def replica(self):
        return next((c.value for c in self.jar if c.name == "KLENS_REPLICA"), None)

    def sign_in(self, user):
        with self.opener.open(f"{LB}/auth/login", timeout=10) as r:
            form_url = r.geturl()
            page = r.read().decode()
        if not form_url.startswith("http://127.0.0.1:19000"):
            fail(f"sign-in did not reach the provider: {form_url}")
        action = form_url.split("?")[0] + "/login"
        found = re.search(r'action="([^"]+)"', page)
        if found and found.group(1).startswith("/"):
            action = "http://127.0.0.1:19000" + found.group(1)
        data = urllib.parse.urlencode({"username": user, "password": f"{user}-pw"}).encode()
        with self.opener.open(urllib.request.Request(action, data=data), timeout=10) as r:
            if not r.geturl().startswith(LB):
                fail(f"sign-in did not come back through the balancer: {r.geturl()}")
        status, me = self.get("/api/whoami")
        if status != 200:
            fail(f"{user} is not signed in after the callback: {status} {me}")
        return me

    def get(self, path):
        return self.call(urllib.request.Request(f"{LB}{path}"))

    def post(self, path, body):
        request = urllib.request.Request(f"{LB}{path}", data=json.dumps(body).encode(),
                                         headers={"content-type": "application/json"})
        return self.call(request)

    def call(self, request):
        try:
            with self.opener.open(request, timeout=120) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            body = e.read()
            try:
                return e.code, json.loads(body)
            except ValueError:
                return e.code, body.decode(errors="replace")


def topics():
    return AdminClient({"bootstrap.servers": KAFKA}).list_topics(timeout=10).topics


def make_topic(name, partitions=1):
    admin = AdminClient({"bootstrap.servers": KAFKA})
    for f in admin.create_topics([NewTopic(name, partitions, 1)]).values():
        f.result()


def records_of(topic):
    consumer = Consumer({"bootstrap.servers": KAFKA, "group.id": f"two-replicas-{time.time_ns()}",
                         "enable.auto.commit": False, "enable.partition.eof": True})
    low, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
    consumer.assign([TopicPartition(topic, 0, low)])
    seen = []
    while len(seen) < high - low:
        m = consumer.poll(5)
        if m is None:
            break
        if m.error():
            continue
        seen.append(m)
    consumer.close()
    return seen


def wait_listed(browser, topic):
    """Until the replica `browser` is on lists `topic` (it refreshes its catalog on its own)."""
    for _ in range(60):
        if browser.get(f"/api/topic?cluster=local&topic={topic}")[0] == 200:
            return
        time.sleep(0.5)
    fail(f"replica {browser.replica()} never listed {topic}")


def flink_jobs(name):
    with urllib.request.urlopen(f"{FLINK}/jobs/overview", timeout=10) as r:
        jobs = json.load(r)["jobs"]
    return [j for j in jobs if j["name"] == f"klens-processor-{name}" and j["state"] not in
            ("CANCELED", "FAILED", "FINISHED")]


def check_sign_in_and_matrix():
    alice, bob = Browser(), Browser()
    me = alice.sign_in("alice")
    log(f"alice signed in through the balancer on replica {alice.replica()}: {json.dumps(me)[:80]}")
    bob.sign_in("bob")
    made = f"two-replicas-{time.time_ns()}"
    status, answer = bob.post("/api/create_topic", {"cluster": "local", "topic": made, "partitions": 1})
    if (status, answer.get("code")) != (403, "MISSING_PRIVILEGE"):
        fail(f"bob's create_topic: {status} {answer}")
    if made in topics():
        fail("bob's refused create made the topic")
    status, answer = alice.post("/api/create_topic", {"cluster": "local", "topic": made, "partitions": 1})
    if status != 200 or made not in topics():
        fail(f"alice's create_topic: {status} {answer}")
    status, answer = alice.post("/api/delete_topic", {"cluster": "local", "topic": made})
    if status != 200:
        fail(f"alice's delete_topic: {status} {answer}")
    log("matrix sample: bob refused with nothing made, alice's topic made and deleted, as Kafka lists")


def check_processor_race():
    first, second = Browser("a"), Browser("b")
    first.sign_in("alice")
    second.sign_in("alice")
    if (first.replica(), second.replica()) != ("a", "b"):
        fail(f"the sessions are not on both replicas: {first.replica()} {second.replica()}")
    output = f"two-replicas-out-{time.time_ns()}"
    make_topic(output)
    # Each replica reads Kafka on its own: both must list the new topic first.
    for browser in (first, second):
        wait_listed(browser, output)
    name = f"two-replicas-{time.time_ns()}"
    sql = f"INSERT INTO `{output}` SELECT order_id, total FROM `orders` WHERE total > 900"
    body = {"cluster": "local", "name": name, "sql": sql}
    answers = {}

    def create(who, browser):
        answers[who] = browser.post("/api/create_processor", body)

    threads = [threading.Thread(target=create, args=(w, b)) for w, b in (("a", first), ("b", second))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    codes = sorted(status for status, _ in answers.values())
    if codes != [200, 422]:
        fail(f"one processor created from both replicas: {answers}")
    jobs = flink_jobs(name)
    if len(jobs) != 1:
        fail(f"Flink runs {len(jobs)} jobs for the processor: {jobs}")
    status, answer = first.post("/api/delete_processor", {"cluster": "local", "name": name})
    if status != 200:
        fail(f"delete_processor: {status} {answer}")
    log("a processor created on both replicas at once: one made, the other refused, one Flink job")


def check_copy_through_a_restart(replicas):
    source = f"two-replicas-src-{time.time_ns()}"
    target = f"two-replicas-dst-{time.time_ns()}"
    make_topic(source)
    make_topic(target)
    from confluent_kafka import Producer
    producer = Producer({"bootstrap.servers": KAFKA})
    for i in range(600):
        producer.produce(source, key=f"k{i}", value=json.dumps({"n": i}))
    producer.flush(10)
    alice = Browser("a")
    alice.sign_in("alice")
    wait_listed(alice, source)
    wait_listed(alice, target)
    status, started = alice.post("/api/copy_records", {"cluster": "local", "topic": source,
                                                        "target_topic": target, "rate": 50})
    if status != 200:
        fail(f"copy_records: {status} {started}")
    job = started["job"]["id"]
    time.sleep(4)
    log(f"killing replica a in the middle of copy job {job}")
    replicas.kill("a")
    replicas.start("a")
    # Its session went with it: signed in again, on whichever replica the balancer picks.
    again = Browser()
    again.sign_in("alice")
    ended = None
    # Ended by a replica's sweep once its record has not moved for 45 s (server::jobs).
    for _ in range(160):
        status, listed = again.get("/api/copy_jobs?cluster=local")
        found = [j for j in (listed or {}).get("jobs", []) if j["id"] == job]
        if status == 200 and found and found[0]["state"] != "running":
            ended = found[0]
            break
        time.sleep(0.5)
    if not ended:
        fail(f"the job of the killed replica was not ended: {listed}")
    if ended["state"] != "failed" or "stopped while it ran" not in (ended.get("error") or ""):
        fail(f"the job's end: {ended}")
    written = records_of(target)
    lineage = [dict(m.headers() or []).get("klens-copied-from") for m in written]
    if len(set(lineage)) != len(lineage):
        fail("a record was copied twice")
    if not (ended["copied"] <= len(written) < 600):
        fail(f"{len(written)} records in the target, the job says {ended['copied']} copied of 600")
    log(f"copy through a killed replica: ended as failed by a replica ({ended['copied']} recorded, "
        f"{len(written)} in the target, none twice, the rest left for a new job)")


def main():
    binary = sys.argv[1]
    replicas = Replicas(binary)
    try:
        replicas.start_all()
        check_sign_in_and_matrix()
        check_processor_race()
        check_copy_through_a_restart(replicas)
    finally:
        replicas.stop_all()
    log("passed")


if __name__ == "__main__":
    main()
