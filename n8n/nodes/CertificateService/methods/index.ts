export * as listSearch from '../../shared/listSearch';
export * as resourceMapping from './resourceMapping';
