/**
 * Every command id the extension contributes, typed: code names commands through this object
 * (tree items, CodeLens, webviews, tests), and a test checks it against package.json.
 */
export const COMMANDS = {
  refresh: 'benchTriage.refresh',
  cancelScan: 'benchTriage.cancelScan',
  groupBy: 'benchTriage.groupBy',
  filter: 'benchTriage.filter',
  clearFilter: 'benchTriage.clearFilter',
  dashboard: 'benchTriage.dashboard',
  exportReport: 'benchTriage.exportReport',
  openFile: 'benchTriage.openFile',
  openLog: 'benchTriage.openLog',
  openResult: 'benchTriage.openResult',
  openLogFile: 'benchTriage.openLogFile',
  openRunLog: 'benchTriage.openRunLog',
  goToFirstError: 'benchTriage.goToFirstError',
  goToFirstErrorInFile: 'benchTriage.goToFirstErrorInFile',
  rerun: 'benchTriage.rerun',
  rerunWithFix: 'benchTriage.rerunWithFix',
  runCommit: 'benchTriage.runCommit',
  runMore: 'benchTriage.runMore',
  explainPlan: 'benchTriage.explainPlan',
  cancelRun: 'benchTriage.cancelRun',
  compare: 'benchTriage.compare',
  diffAgentVsHuman: 'benchTriage.diffAgentVsHuman',
  annotate: 'benchTriage.annotate',
  copyPerfCommand: 'benchTriage.copyPerfCommand',
  setHuggingFaceToken: 'benchTriage.setHuggingFaceToken',
  clearHuggingFaceToken: 'benchTriage.clearHuggingFaceToken',
  setRunSecret: 'benchTriage.setRunSecret',
  createRuleFromSelection: 'benchTriage.createRuleFromSelection',
  runGroup: 'benchTriage.runGroup',
  cancelCampaign: 'benchTriage.cancelCampaign',
  resumeCampaign: 'benchTriage.resumeCampaign',
  buildImage: 'benchTriage.buildImage',
  buildImagesForGroup: 'benchTriage.buildImagesForGroup',
  cancelBuild: 'benchTriage.cancelBuild',
  openBuildLog: 'benchTriage.openBuildLog',
} as const;

export type CommandId = (typeof COMMANDS)[keyof typeof COMMANDS];
