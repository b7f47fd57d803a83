import { z } from 'zod';
import { MAX_GET_KEYS, MAX_LABEL_CHARS } from '../domain/parse-custom-label-request.js';
import { CUSTOM_LABEL_KEYS } from '../stores.js';
import { json, Token } from './phone-schemas.js';
import { type GroupRoute, routeGroup, USER_CALL_REFUSALS, WRITER_CALL_REFUSALS } from './phone-route.js';

/** routes/custom-labels.ts: the labels a user adds to their app's lists, as e-mission's cfc_webapp.py serves them. */

const LabelKey = z.enum(CUSTOM_LABEL_KEYS);

const Label = z
  .string()
  .min(1)
  .meta({
    description: `A label id such as e_scooter: not blank, at most ${MAX_LABEL_CHARS} characters, no control or bidirectional characters`,
  });

const LabelOf = z.object({ key: LabelKey, label: Label });

const LabelGet = z
  .looseObject({ user: Token, keys: z.array(LabelKey).max(MAX_GET_KEYS) })
  .meta({ id: 'CustomLabelGet' });

const LabelUpdate = z
  .looseObject({
    user: Token,
    updated_label: z.object({
      key: LabelKey,
      old_label: z
        .union([Label, z.literal(''), z.null()])
        .optional()
        .meta({ description: 'The label a trip had; "", null or absent for none' }),
      new_label: Label,
      is_new_label_must_added: z.boolean().meta({ description: 'Add new_label if the user has no such label yet' }),
    }),
  })
  .meta({ id: 'CustomLabelUpdate' });

const ActiveLabels = z
  .object({ label: z.array(z.string()) })
  .meta({ id: 'ActiveLabels', description: 'The key’s active labels after the change: most used first' });

const writerRefusals = { ...WRITER_CALL_REFUSALS, 400: 'A malformed body, an unknown key or a label that is no label' };

/**
 * Insert and delete: a change of one label, named under the route's own field, which parseLabelOf reads for either.
 * Both are writers' calls and answer the key's active labels after the change.
 */
function oneLabelChange(change: {
  path: string;
  summary: string;
  field: 'inserted_label' | 'deleted_label';
  bodyId: string;
  answered: string;
}): GroupRoute {
  return {
    method: 'post',
    path: change.path,
    summary: change.summary,
    body: z.looseObject({ user: Token, [change.field]: LabelOf }).meta({ id: change.bodyId }),
    example: { user: 'alice@example.org', [change.field]: { key: 'mode', label: 'e_scooter' } },
    validatedBy: 'domain/parse-custom-label-request.ts parseLabelOf',
    answers: { 200: { description: change.answered, content: json(ActiveLabels) } },
    refusals: writerRefusals,
  };
}

export const customLabelsApi = routeGroup('customlabel', [
  {
    method: 'post',
    path: '/customlabel/get',
    summary: 'The user’s active labels of some keys',
    body: LabelGet,
    example: { user: 'alice@example.org', keys: ['mode', 'purpose'] },
    validatedBy: 'domain/parse-custom-label-request.ts parseLabelGet',
    answers: {
      200: {
        description: 'Each key asked, with its active labels, most used first',
        content: json(z.partialRecord(LabelKey, z.array(z.string())).meta({ id: 'CustomLabels' })),
      },
    },
    refusals: { ...USER_CALL_REFUSALS, 400: 'A malformed body, or an unknown key' },
  },
  oneLabelChange({
    path: '/customlabel/insert',
    summary: 'Add a label (or make a deleted one active again, keeping its use count)',
    field: 'inserted_label',
    bodyId: 'CustomLabelInsert',
    answered: 'Added',
  }),
  {
    method: 'post',
    path: '/customlabel/update',
    summary: 'Record that a trip’s label changed from one label to another',
    body: LabelUpdate,
    example: {
      user: 'alice@example.org',
      updated_label: { key: 'mode', old_label: 'walk', new_label: 'e_scooter', is_new_label_must_added: true },
    },
    validatedBy: 'domain/parse-custom-label-request.ts parseLabelUpdate',
    answers: { 200: { description: 'Recorded', content: json(ActiveLabels) } },
    refusals: writerRefusals,
  },
  oneLabelChange({
    path: '/customlabel/delete',
    summary: 'Make a label inactive (a label the user does not have is no error)',
    field: 'deleted_label',
    bodyId: 'CustomLabelDelete',
    answered: 'Removed',
  }),
]);
