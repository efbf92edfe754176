// The scripts a swarm's GPU slot runs in its containers (python3, stdlib only: any vLLM image has
// it), and the markers and signals they share with the runner. Kept apart from the runtime so
// that a test can run them on a real engine as they are.

/** Written after the run's files are in place; the task's command waits for it before it starts. */
export const READY = '/.bench-triage-ready';
/** Made by the task's command once the run holds its slot's GPUs (after READY), holding the node's clock then (seconds): the run's phases may start. */
export const HELD = '/.bench-triage-gpu';
/** Made by a slot's run's command once it waits for its go (a signal sent before would be lost). */
export const ARMED = '/.bench-triage-armed';
/**
 * The run's first phase (JSON: the helper's launch argv and the marker it claims), put beside READY
 * on a slot: the task's command launches it the moment it holds the GPUs, so the hand-off costs no
 * round trip to the runner.
 */
export const FIRST = '/.bench-triage-first';
/** Written by a run's first process once no other process of the run is left and its GPUs went back to the slot: the node's clock then (seconds; its mtime says the same). */
export const FREED = '/.bench-triage-freed';
/**
 * Put beside READY when the run is the first of its slot's runs as its files go in: no run before
 * it there to wait for, so its command goes as soon as it starts, with no armed marker to poll for
 * nor go signal to send (a slot's first runs, all at a campaign's start, take their GPUs sooner).
 */
export const GO_NOW = '/.bench-triage-go';
/** The go of a run on a slot: it takes the slot's GPUs once they are free (the default action of SIGWINCH is to ignore it). */
export const GO_SIGNAL = 'SIGWINCH';
/** Tells the run next in line on a slot to wait on the slot's lock itself (the default action of SIGURG is to ignore it). */
export const NEXT_SIGNAL = 'SIGURG';
/**
 * Asks a slot's run that waits for its GPUs to give up its place (the runner moves it to a slot
 * that freed first): its command ends with WITHDRAWN_EXIT if it has not taken the GPUs, and does
 * nothing once it has (that run goes on where it is). A handler, not a mask: it must interrupt the
 * wait on the lock or for the go.
 */
export const WITHDRAW_SIGNAL = 'SIGUSR1';
/** The exit code of a run's command that withdrew: nothing of the run was launched, its lock is let go. */
export const WITHDRAWN_EXIT = 75;
/** Asks a finished run's first process to end every other process of the run and hand its GPUs over (the helper's `idle` handles it). */
export const GIVE_BACK_SIGNAL = 'SIGUSR2';
/**
 * A node-local volume (made by the node on first use) where a slot's lock files live: every
 * container of a slot on that node mounts it, so that two of them never hold the slot's GPUs at
 * once, whatever the order of the runner's steps.
 */
export const SLOT_VOLUME = 'bench-triage-slots';
export const SLOT_DIR = '/.bench-triage-slots';
/**
 * A slot's run may get its files as the swarm's secrets, mounted as its container starts: this
 * many pieces (the env), each `/run/secrets/FILES_SECRET.i`, joined are a gzipped tar for `/`.
 */
export const FILES_ENV = 'BENCH_TRIAGE_FILES';
export const FILES_SECRET = 'bench-triage-files';
/** A holder whose slot no container has claimed, and whose process has not renewed it, for this long ends itself (its process died). */
const HOLDER_IDLE_S = 20;

/**
 * The run's command. It claims its slot (a shared lock held for the container's life: its holder
 * stays while any run of the slot exists), waits for its files (the ready marker), then takes the
 * slot's GPUs (the exclusive `lock`) in one of two ways:
 * - the go (GO_SIGNAL), which the runner sends once the run before has died: a lock alone is given
 *   back as that run's first process exits, while its other processes may still hold GPU memory;
 * - the hand-off: told it is next (NEXT_SIGNAL), it waits on the lock itself, and goes at once if
 *   the `handoff` token is there as it gets it. Only the run before writes the token, once no
 *   process of its own is left but its first (the helper's `give_back`); whoever holds the lock
 *   removes a token it finds, so a token never outlives the hand-over it was written for.
 * Both signals are blocked and taken by sigwaitinfo: one sent at any moment after the armed marker
 * is never lost. With the GPUs held it launches the run's first phase (FIRST), detached and in a
 * session of its own, then becomes the container's own command (the helper's `idle`, which reaps
 * that phase and keeps the lock: its fd and the token's path are in its environment).
 */
export const KEEPER = [
  'import fcntl,json,os,signal,sys,time',
  `s=os.environ.get('BENCH_TRIAGE_SLOT')`,
  `GO,NEXT=signal.${GO_SIGNAL},signal.${NEXT_SIGNAL}`,
  // Committed once it holds the GPUs and may go: a withdrawal before that ends the command (its
  // lock goes with it, nothing launched); after it, the withdrawal is too late and is ignored.
  'committed=False',
  'def withdraw(*a):',
  `  if not committed: os._exit(${WITHDRAWN_EXIT})`,
  'def lock(name, how):',
  `  fd=os.open('${SLOT_DIR}/'+s+'.'+name, os.O_RDWR|os.O_CREAT, 0o666)`,
  '  fcntl.flock(fd, how)',
  '  return fd',
  'if s:',
  // A handler, not the default: the first process of a container gets no signal it does not handle.
  '  for g in (GO,NEXT): signal.signal(g, lambda *a: None)',
  `  signal.signal(signal.${WITHDRAW_SIGNAL}, withdraw)`,
  '  signal.pthread_sigmask(signal.SIG_BLOCK, {GO,NEXT})',
  `  lock('claim', fcntl.LOCK_SH)`,
  // The run's files as the swarm's secrets: unpacked before anything waits for them (READY is in them).
  `n=int(os.environ.get('${FILES_ENV}') or 0)`,
  'if n:',
  '  import io,tarfile',
  '  try:',
  `    b=b''.join(open('/run/secrets/${FILES_SECRET}.%d'%i,'rb').read() for i in range(n))`,
  "    f=getattr(tarfile,'fully_trusted_filter',None)",
  "    tarfile.open(fileobj=io.BytesIO(b),mode='r:gz').extractall('/',**({'filter':f} if f else {}))",
  '  except Exception as e:',
  `    sys.stderr.write("bench-triage: cannot unpack the run's files from the swarm's secrets: %s\\n"%e); sys.exit(1)`,
  `while not os.path.exists(${JSON.stringify(READY)}): time.sleep(0.02)`,
  'held=-1',
  'if s:',
  `  open(${JSON.stringify(ARMED)},'w').close()`,
  `  went=os.path.exists(${JSON.stringify(GO_NOW)}) or signal.sigwaitinfo({GO,NEXT}).si_signo==GO`,
  `  held=lock('lock', fcntl.LOCK_EX)`,
  `  token='${SLOT_DIR}/'+s+'.handoff'`,
  '  try:',
  '    os.unlink(token); handed=True',
  '  except OSError: handed=False',
  '  if not (went or handed): signal.sigwaitinfo({GO})',
  '  committed=True',
  '  for g in (GO,NEXT): signal.signal(g, signal.SIG_IGN)',
  '  signal.pthread_sigmask(signal.SIG_UNBLOCK, {GO,NEXT})',
  '  os.set_inheritable(held, True)',
  "  os.environ['BENCH_TRIAGE_LOCK_FD']=str(held)",
  "  os.environ['BENCH_TRIAGE_HANDOFF']=token",
  'at=time.time()',
  // The first phase: its launch claimed (its marker made) before the GPUs are said held, so the
  // gate knows at once whether it is under way; a launch that cannot start says so in its files.
  'try: first=json.load(open(' + JSON.stringify(FIRST) + '))',
  'except (OSError,ValueError): first=None',
  "if not (isinstance(first,dict) and isinstance(first.get('marker'),str) and isinstance(first.get('argv'),list) and first['argv'] and all(isinstance(a,str) for a in first['argv'])): first=None",
  'if first:',
  "  m=first['marker']",
  '  try:',
  '    os.makedirs(os.path.dirname(m),exist_ok=True)',
  '    os.close(os.open(m,os.O_CREAT|os.O_EXCL|os.O_WRONLY,0o644))',
  '  except OSError: first=None',
  'if first and os.fork()==0:',
  '  try:',
  // Only the container's first process holds the lock: the phase's end never gives it back.
  '    if held>=0: os.close(held)',
  '    signal.signal(GO, signal.SIG_DFL)',
  '    os.setsid()',
  "    os.execvp(first['argv'][0], first['argv'])",
  '  except BaseException as e:',
  '    try:',
  "      b=m[:-len('.launched')]",
  "      open(b+'.err','a').write('bench-triage: cannot launch the phase: %s\\n'%e)",
  "      open(b+'.exit','w').write('127')",
  '    except BaseException: pass',
  '  finally: os._exit(127)',
  `open(${JSON.stringify(HELD + '.tmp')},'w').write('%.6f'%at)`,
  `os.replace(${JSON.stringify(HELD + '.tmp')}, ${JSON.stringify(HELD)})`,
  'os.execvp(sys.argv[1], sys.argv[1:])',
].join('\n');

/** A holder's command: keeps the reservation while its slot is claimed or renewed (the go signal); ends itself after HOLDER_IDLE_S without either. */
export const HOLDER = [
  'import fcntl,os,signal,sys,time',
  `d='${SLOT_DIR}/'+sys.argv[1]`,
  `c=os.open(d+'.claim', os.O_RDWR|os.O_CREAT, 0o666)`,
  'idle=time.monotonic()',
  'def renew(*a):',
  '  global idle',
  '  idle=time.monotonic()',
  `signal.signal(signal.${GO_SIGNAL}, renew)`,
  'while True:',
  '  time.sleep(1)',
  '  try: fcntl.flock(c, fcntl.LOCK_EX|fcntl.LOCK_NB)',
  '  except OSError:',
  '    idle=time.monotonic(); continue',
  '  fcntl.flock(c, fcntl.LOCK_UN)',
  `  if time.monotonic()-idle > ${HOLDER_IDLE_S}: break`,
  "for f in ('.claim','.lock','.handoff'):",
  '  try: os.unlink(d+f)',
  '  except OSError: pass',
].join('\n');

/** Run in a holder's container: exit 0 when no run of its slot exists (nothing claims it). */
export const UNCLAIMED = `import fcntl,os,sys\nfd=os.open('${SLOT_DIR}/'+sys.argv[1]+'.claim', os.O_RDWR|os.O_CREAT, 0o666)\ntry: fcntl.flock(fd, fcntl.LOCK_EX|fcntl.LOCK_NB)\nexcept OSError: sys.exit(1)`;

/**
 * Run in a run's container: returns once its command holds the slot's GPUs, printing when it took
 * them (the node's clock); with the first phase's marker, exit code 3 when the command did not
 * launch it (the runner launches it then).
 */
export const GATE = [
  'import os,sys,time',
  `while not os.path.exists(${JSON.stringify(HELD)}): time.sleep(0.002)`,
  // A bounded read: the marker is the keeper's, but the image is the user's.
  `print(open(${JSON.stringify(HELD)}).read(64))`,
  'if len(sys.argv)>1 and not os.path.exists(sys.argv[1]): sys.exit(3)',
].join('\n');
