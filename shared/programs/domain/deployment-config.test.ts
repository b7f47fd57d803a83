import { describe, expect, it } from 'vitest';
import { ConfigRefusal, parseDeploymentConfig, phonesMakeTokens, type DeploymentConfig } from './deployment-config.js';

const openpath = {
  url_abbreviation: 'ebike-city',
  version: 3,
  min_app_version: '1.9.0',
  intro: { program_or_study: 'program', translated_text: { en: { deployment_name: 'E-bike city' } } },
  server: { connectUrl: 'https://itinera.example.org', aggregate_call_auth: 'user_only' },
  survey_info: { 'trip-labels': 'MULTILABEL' },
  label_options:
    'https://raw.githubusercontent.com/e-mission/nrel-openpath-deploy-configs/main/label_options/ebike.json',
  opcode: { autogen: true, subgroups: ['test', 'low-income', 'regular'], suspended_subgroups: ['test'] },
  metrics: { include_test_users: true, phone_dashboard_ui: { sections: ['footprint'] } },
  reminderSchemes: { weekly: { schedule: [{ start: 7, end: 14, intervalInDays: 7 }] } },
};

function refusal(doc: unknown): string {
  const parsed = parseDeploymentConfig(JSON.stringify(doc));
  expect(parsed).toBeInstanceOf(ConfigRefusal);
  return (parsed as ConfigRefusal).message;
}

describe('a deployment configuration', () => {
  it('When an OpenPATH document is read, then every field, known or not, is kept as it was', () => {
    expect(parseDeploymentConfig(JSON.stringify(openpath))).toEqual(openpath);
  });

  it('When the version is missing, not an integer or below 1, then the document is refused naming "version"', () => {
    const { version: _, ...without } = openpath;
    expect(refusal(without)).toMatch(/^version: /);
    expect(refusal({ ...openpath, version: 2.5 })).toMatch(/^version: /);
    expect(refusal({ ...openpath, version: 0 })).toMatch(/^version: /);
    expect(refusal({ ...openpath, version: '4' })).toMatch(/^version: /);
  });

  it('When a subgroup holds an underscore, then it is refused: tokens are split on "_"', () => {
    expect(refusal({ ...openpath, opcode: { subgroups: ['low_income'] } })).toMatch(/^opcode\.subgroups\.0: /);
  });

  it('When a suspended subgroup is not one of the subgroups, then the document is refused naming it', () => {
    expect(refusal({ ...openpath, opcode: { subgroups: ['a'], suspended_subgroups: ['b'] } })).toContain('"b"');
    expect(refusal({ ...openpath, opcode: { suspended_subgroups: ['b'] } })).toContain('(default)');
    expect(
      parseDeploymentConfig(JSON.stringify({ ...openpath, opcode: { suspended_subgroups: ['default'] } })),
    ).not.toBeInstanceOf(ConfigRefusal);
  });

  it('When min_app_version is no version, or label_options neither a web address nor an object, then it is refused', () => {
    expect(refusal({ ...openpath, min_app_version: 'latest' })).toMatch(/^min_app_version: /);
    expect(refusal({ ...openpath, label_options: 'file:///etc/passwd' })).toMatch(/^label_options: /);
    expect(refusal({ ...openpath, label_options: [1] })).toMatch(/^label_options: /);
  });

  it('When the text is not JSON, is a list, or is too large, then it is refused saying so', () => {
    expect((parseDeploymentConfig('{"version": 1,') as ConfigRefusal).message).toMatch(/^not JSON/);
    expect(refusal([openpath])).toMatch(/^\(document\)/);
    const big = JSON.stringify({ ...openpath, intro: { text: 'x'.repeat(600 * 1024) } });
    expect((parseDeploymentConfig(big) as ConfigRefusal).message).toMatch(/larger than/);
  });
});

describe('who makes the tokens (e-mission dynamic auth)', () => {
  const config = (doc: object) => parseDeploymentConfig(JSON.stringify({ version: 1, ...doc })) as DeploymentConfig;
  it('When opcode.autogen is true, then phones make their own; when false or absent, only issued tokens count', () => {
    expect(phonesMakeTokens(config({ opcode: { autogen: true } }))).toBe(true);
    expect(phonesMakeTokens(config({ opcode: { autogen: false } }))).toBe(false);
    expect(phonesMakeTokens(config({ opcode: {}, intro: { program_or_study: 'study' } }))).toBe(false);
  });
  it('When the document has no opcode, then a study lets phones register and a program does not', () => {
    expect(phonesMakeTokens(config({ intro: { program_or_study: 'study' } }))).toBe(true);
    expect(phonesMakeTokens(config({ intro: { program_or_study: 'program' } }))).toBe(false);
    expect(phonesMakeTokens(config({}))).toBe(false);
  });
});
