import { z } from 'zod';
import { draft, hashOf, str, zNum, zStr, type Detector } from './common';
import { logsOf } from './own';
import { BUILD_SOURCE } from '../../model';

/**
 * BT2 — an image build of the extension (`schema: "bench-triage.build/v1"`), written under
 * `.bench-triage/builds/<commit12>/<buildId>/build.json`. A failed build is where its role stands
 * (`build-failed`, classified from build.log); any other build is history of the role.
 */
export const BUILD_RECORD_SCHEMA = 'bench-triage.build/v1';

const BT2Schema = z.looseObject({
  schema: z.literal(BUILD_RECORD_SCHEMA),
  buildId: z.string(),
  commit: z.string(),
  role: z.enum(['baseline', 'human']),
  status: z.string(),
  error: zStr,
  tag: z.string(),
  base: zStr,
  createdAt: zStr,
  startedAt: zStr,
  durationS: zNum,
  log: zStr,
});

export const BT2: Detector = {
  id: 'BT2',
  schema: BT2Schema,
  matches: v => v.schema === BUILD_RECORD_SCHEMA,
  normalise(v, ctx) {
    const commit = hashOf(v.commit);
    if (!commit) return [];
    const failed = v.status === 'failed';
    const problems: Array<{ field: string; message: string }> = [];
    const dir = ctx.path.slice(0, ctx.path.lastIndexOf('/') + 1);
    const { logFiles } = logsOf(str(v.log) ? [v.log] : [], dir, problems);
    return [
      draft(
        {
          commit,
          role: v.role,
          source: BUILD_SOURCE,
          schema: 'BT2',
          pointer: '',
          ctx,
          originalStatus: failed ? 'build-failed' : v.status === 'succeeded' || v.status === 'reused' ? `built (${v.status})` : `build ${v.status}`,
          status: failed ? 'failed' : 'skipped',
        },
        {
          error: failed ? `building ${v.tag} failed: ${str(v.error) ?? 'no reason recorded'}` : null,
          errorField: null,
          image: v.tag,
          timestamp: str(v.startedAt) ?? str(v.createdAt),
          durationS: typeof v.durationS === 'number' ? v.durationS : null,
          logFiles,
          problems: problems.map(p => ({ ...p, field: p.field.replace(/^logs\.0$/, 'log') })),
        },
      ),
    ];
  },
};
