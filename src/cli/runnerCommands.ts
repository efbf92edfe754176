// The commands that drive Docker or git (plan, run, resume, build, campaign, swarm, ablate): a
// bundle of their own (dist/cli-runner.js), loaded when one of them runs, so that scan, classify,
// report, label and rules start without dockerode, ssh2, grpc and execa (0.35 s of every start).
export { planCommand } from './planCommand';
export { resumeCommand, runCommand } from './runCommand';
export { campaignCommand } from './campaignCommand';
export { buildCommand } from './buildCommand';
export { swarmCommand } from './swarmCommand';
export { ablatePlanCommand, ablateReportCommand } from './ablateCommand';
export { releaseSwarmSlots } from '../app/runs';
